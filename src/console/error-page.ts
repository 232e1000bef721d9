// The console's face (http/error-faces.ts): errors on its pages answered as pages, never as the API's JSON. A
// refusal the wallet API would answer with a code is shown to the merchant with that code's HTTP status; anything
// else is the console's failure, said without detail. Unknown paths under /console are answered like the root's.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../core/domain-errors.ts';
import type { FaceRenderer } from '../http/error-faces.ts';
import { walletAnswerOf } from '../http/wallet-face.ts';

/** The HTTP status of a refusal the console shows the merchant, or null for anything else (a failure of ours). */
export function refusalStatus(err: unknown): number | null {
  if (!(err instanceof DomainError) || err.kind === 'unavailable') return null;
  return walletAnswerOf(err)?.http ?? null;
}

/** What the merchant reads of an error. */
export const messageOf = (err: unknown): string => (refusalStatus(err) !== null ? (err as Error).message : 'Something went wrong; try again.');

/** Writes the console's error page: status, title, the text of its flash. */
export type ErrorPageWriter = (request: FastifyRequest, reply: FastifyReply, status: number, title: string, text: string) => FastifyReply;

/** The console face: `root` answers what has no console route (an unknown path); `page` writes the error page. */
export function consoleFace(root: FaceRenderer, page: ErrorPageWriter): FaceRenderer {
  return {
    ...root,
    error(err, request, reply) {
      if (request.is404) return root.error(err, request, reply);
      const refused = refusalStatus(err);
      const status = refused ?? (err.validation || (err.statusCode ?? 500) < 500 ? (err.statusCode ?? 400) : 500);
      if (status >= 500) request.log.error({ err }, 'console request failed');
      const title = status === 404 ? 'Not found' : status === 403 ? 'Refused' : 'Something went wrong';
      const text = status === 404 ? 'There is nothing here, or it belongs to another account.' : status >= 500 ? 'The console could not do this; try again.' : messageOf(err);
      return page(request, reply, status, title, text);
    },
  };
}
