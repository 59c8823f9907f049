export function formatDate(iso: string): string {
  const date = new Date(iso);
  return date.toLocaleDateString("en-GB", { year: "numeric", month: "short", day: "numeric" });
}
