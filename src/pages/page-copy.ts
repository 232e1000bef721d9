// Every sentence the hosted payment page shows about the payment's state, in one place.
// The server renders them and hands them to the browser script (as data), so both speak alike.
// Placeholders in braces are filled with numbers and currency codes only, never with merchant text.
import { messagesFor, type Messages } from './messages.ts';
import { DEFAULT_LANGUAGE } from './locales/index.ts';

/** What the payer is looking at: the status, refined by whether the guaranteed amount has expired. */
export type PagePhase =
  | 'unpaid'
  | 'unpaid-expired'
  | 'unconfirmed-less'
  | 'unconfirmed-less-expired'
  | 'confirmed-less'
  | 'confirmed-less-expired'
  | 'unconfirmed'
  | 'unconfirmed-more'
  | 'confirmed'
  | 'confirmed-more'
  | 'invalid';

/** The sentences of the page, keyed by phase (headline and detail) or by purpose. */
export interface PageCopy {
  headlines: Record<PagePhase, string>;
  details: Record<PagePhase, string>;
  amountLabels: { due: string; remaining: string; indicative: string; indicativeRemaining: string };
  indicative: string;
  fetchingIndicative: string;
  indicativeUnavailable: string;
  expired: string;
  copied: string;
  copyFallback: string;
  offline: string;
  /** The bitcoin: link's text (opens the payer's wallet app on the same device). */
  openInWallet: string;
  /** The badge of a payment in test coins (testnet, signet, regtest). */
  testBadge: string;
  /** What has been received once funds are seen; {paid_crypto} is a plain decimal. */
  paid: string;
  /** The label of the transaction list and each transaction's copy button. */
  transactions: string;
  copyTxid: string;
  /** The QR code's text alternative; {amount}, {crypto_currency} and {address} are filled by the script. */
  qrAlt: string;
}

/** Minutes a first confirmation usually takes, as the page tells the payer. */
const CONFIRMATION_MINUTES = 10;

/**
 * The copy of the hosted payment page in `m`'s language. Placeholders the browser script fills stay `{name}`
 * in the result (they are formatted with their own names), so the script needs no message parser.
 */
export function pageCopy(m: Messages): PageCopy {
  const keep = (...names: string[]) => Object.fromEntries(names.map((n) => [n, `{${n}}`]));
  const missing = keep('missing_order', 'order_currency');
  const extra = { ...keep('extra_order', 'order_currency'), minutes: CONFIRMATION_MINUTES };
  return {
    headlines: {
      unpaid: m.t('payment.headline.waitingForPayment'),
      'unpaid-expired': m.t('payment.headline.guaranteedAmountExpired'),
      'unconfirmed-less': m.t('payment.headline.seenButNotEnough'),
      'unconfirmed-less-expired': m.t('payment.headline.seenButNotEnough'),
      'confirmed-less': m.t('payment.headline.confirmedButNotEnough'),
      'confirmed-less-expired': m.t('payment.headline.confirmedButNotEnough'),
      unconfirmed: m.t('payment.headline.paidWaitingForConfirmation'),
      'unconfirmed-more': m.t('payment.headline.paidTooMuchWaitingForConfirmation'),
      confirmed: m.t('payment.headline.paidConfirmed'),
      'confirmed-more': m.t('payment.headline.paidTooMuchConfirmed'),
      invalid: m.t('payment.headline.requestNoLongerValid'),
    },
    details: {
      unpaid: m.t('payment.detail.sendAmountGuaranteedUntilCountdownEnds'),
      'unpaid-expired': m.t('payment.detail.nothingReceivedStillPayIndicative'),
      'unconfirmed-less': m.t('payment.detail.stillMissingSendRemaining', missing),
      'unconfirmed-less-expired': m.t('payment.detail.stillMissingSendIndicativeRemaining', missing),
      'confirmed-less': m.t('payment.detail.stillMissingSendRemaining', missing),
      'confirmed-less-expired': m.t('payment.detail.stillMissingSendIndicativeRemaining', missing),
      unconfirmed: m.t('payment.detail.seenFinalOnceConfirmed', { minutes: CONFIRMATION_MINUTES }),
      'unconfirmed-more': m.t('payment.detail.sentMoreFinalOnceConfirmed', extra),
      confirmed: m.t('payment.detail.thankYouConfirmed'),
      'confirmed-more': m.t('payment.detail.thankYouConfirmedSentMore', keep('extra_order', 'order_currency')),
      invalid: m.t('payment.detail.doNotSendReturnToShop'),
    },
    amountLabels: {
      due: m.t('common.amountToSend'),
      remaining: m.t('common.remainingAmountToSend'),
      indicative: m.t('common.indicativeAmountToSend'),
      indicativeRemaining: m.t('common.indicativeRemainingAmountToSend'),
    },
    indicative: m.t('payment.indicativeAtCurrentRate', keep('rate', 'order_currency', 'crypto_currency')),
    fetchingIndicative: m.t('payment.fetchingIndicativeAmount'),
    indicativeUnavailable: m.t('payment.noRateTryingAgain'),
    expired: m.t('common.countdownExpired'),
    copied: m.t('common.copied'),
    copyFallback: m.t('common.copySelectedPressCtrlC'),
    offline: m.t('common.serverUnreachableRetrying'),
    openInWallet: m.t('common.openInWallet'),
    testBadge: m.t('payment.testPaymentBadge'),
    paid: m.t('payment.paidAmount', keep('paid_crypto', 'crypto_currency')),
    transactions: m.t('payment.transactionIds'),
    copyTxid: m.t('payment.copyTransactionId'),
    qrAlt: m.t('common.qrCodeAlt', keep('amount', 'crypto_currency', 'address')),
  };
}

/** The English copy of the hosted payment page. */
export const PAGE_COPY: PageCopy = pageCopy(messagesFor(DEFAULT_LANGUAGE));

/** Fills `{name}` placeholders from `values`; unknown names are left as they are. */
export function fillCopy(template: string, values: Record<string, string>): string {
  return template.replace(/\{([a-z_]+)\}/g, (whole, name: string) => values[name] ?? whole);
}
