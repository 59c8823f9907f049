/** Parse a value as a number or keep it as text. */
export function parse(value: string): string;
export function parse(value: string, asNumber: true): number;
export function parse(value: string, asNumber?: boolean): string | number {
  return asNumber ? Number(value) : value;
}

function plain(a: number): number {
  return a;
}

export class Reader {
  read(key: string): string;
  read(key: string, fallback: number): number;
  read(key: string, fallback?: number): string | number {
    return fallback ?? key;
  }
}
