// Vendored from github.com/example/tiny-emitter v2.1.0 (MIT). Do not edit here:
// update by copying a new release over this directory.

export type Handler<T = unknown> = (event: T) => void;

export class Emitter<Events extends Record<string, unknown>> {
  private handlers: { [K in keyof Events]?: Handler<Events[K]>[] } = {};

  on<K extends keyof Events>(name: K, handler: Handler<Events[K]>): () => void {
    (this.handlers[name] ??= []).push(handler);
    return () => this.off(name, handler);
  }

  once<K extends keyof Events>(name: K, handler: Handler<Events[K]>): void {
    const off = this.on(name, (event) => {
      off();
      handler(event);
    });
  }

  off<K extends keyof Events>(name: K, handler: Handler<Events[K]>): void {
    this.handlers[name] = (this.handlers[name] ?? []).filter((h) => h !== handler);
  }

  emit<K extends keyof Events>(name: K, event: Events[K]): void {
    for (const handler of [...(this.handlers[name] ?? [])]) {
      handler(event);
    }
  }
}
