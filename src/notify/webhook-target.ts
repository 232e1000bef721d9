import { checkUrlAllowed, type Resolver } from './ssrf-guard.ts';

/**
 * The save-time check of every merchant-supplied notification URL (`return_url`, `notify_url`, and any later
 * webhook URL): null when it may be stored, else why not. An internal target (loopback, private, link-local,
 * metadata) or a bad scheme is refused now; a name that does not resolve is accepted, because DNS may answer
 * later and the send-time check runs on every delivery anyway.
 */
export async function refusedWebhookTarget(url: string, options: { allowPrivate: boolean; resolve?: Resolver }): Promise<string | null> {
  const verdict = await checkUrlAllowed(url, options);
  return verdict.ok || verdict.code === 'dns' ? null : verdict.reason;
}
