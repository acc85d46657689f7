/** Prices as a person reads them: "24.00 USD a month" in the browser's own number format. */
export function formatPrice(cents: number, currency: string, period?: string): string {
  let amount: string;
  try {
    amount = new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(cents / 100);
  } catch {
    amount = `${(cents / 100).toFixed(2)} ${currency}`;
  }
  return period ? `${amount} a ${period}` : amount;
}

// Made on first use, not as the module loads: the page's first Intl formatter sets up the locale's data, which was
// most of the app's start evaluation (docs/decisions.md "The app's start in steps").
let dateFormat: Intl.DateTimeFormat | undefined;
export const formatDate = (iso: string | null | undefined) =>
  iso ? (dateFormat ??= new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'long', year: 'numeric' })).format(new Date(iso)) : '—';
