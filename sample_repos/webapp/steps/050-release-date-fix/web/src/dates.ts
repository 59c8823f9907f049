export function formatDate(iso: string): string {
  const date = new Date(iso);
  return date.toLocaleDateString("en-GB", {
    year: "numeric",
    month: "short",
    day: "numeric",
    // Order dates are UTC days; in a browser west of UTC they showed as the day before.
    timeZone: "UTC",
  });
}
