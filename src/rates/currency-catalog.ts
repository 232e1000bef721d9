/** Which local currencies the service can price in right now. */
export interface CurrencyCatalog {
  /** True when the uppercase code can be used as a local or order currency. */
  isSupported(code: string): boolean;
  /** Every supported code, uppercase, sorted. */
  list(): string[];
}
