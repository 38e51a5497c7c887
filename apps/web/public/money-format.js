// Prices are integers in the currency's minor units (KRW has none, USD has cents).

/** @param {number} amount @param {string} currency */
export function formatMoney(amount, currency) {
  const format = new Intl.NumberFormat(undefined, { style: "currency", currency });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 0;
  return format.format(amount / 10 ** digits);
}
