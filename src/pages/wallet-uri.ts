// The "Open in wallet" link: a BIP21 URI, the only way to pay from the phone that shows the page. The browser script
// (assets/page.js) builds the same URI when the amount to send changes.

/** `bitcoin:<address>?amount=<btc>&label=<name>`; no amount when none is due, no label without a name. */
export function walletUri(address: string, amount: string, label: string): string {
  const params: string[] = [];
  if (amount !== '') params.push(`amount=${amount}`);
  if (label.trim() !== '') params.push(`label=${encodeURIComponent(label)}`);
  return `bitcoin:${address}${params.length ? `?${params.join('&')}` : ''}`;
}
