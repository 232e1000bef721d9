// The language table lives in src/i18n (a low room), so the payer's e-mails (src/notify, src/refunds, src/forms)
// speak the same languages as the pages; the pages keep importing it from here.
export * from '../../i18n/languages.ts';
