// The API faces and the one table that picks a request's face by its URL. Each face is one renderer: it answers
// a domain error (core/domain-errors.ts) or a framework error thrown while answering the face's request, a path
// with no operation, a malformed URL, and the refusals written before Fastify sees the request. The one error
// handler and not-found handler (error-handler.ts) consult the table; no route or domain code writes an error body.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { oauthFace } from './oauth-face.ts';
import { problemFace } from './problem-face.ts';
import { walletFace } from './wallet-face.ts';

/** An answer written outside Fastify (on the socket, or on Node's own response): status, content type, body. */
export interface RawError {
  status: number;
  type: string;
  body: Record<string, unknown>;
}

/** One API face's answers to everything that goes wrong. */
export interface FaceRenderer {
  /** An error thrown while answering a request of this face (by a route, a hook, or with no route at all). */
  error(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply;
  /** No operation at this method and path. */
  notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply;
  /** Fastify's `frameworkErrors`: the URL is malformed before any route runs; `detail` says how. */
  malformedUrl(detail: string, reply: FastifyReply): FastifyReply;
  /**
   * A refusal the HTTP layer makes before any route (the parser's, an unmet Expect): `status` says what was wrong
   * (a 404 for a method nothing has, 408, 417, 431, else 400), `message` says it plainly.
   */
  raw(status: number, message: string): RawError;
}

/** The parts of the interface, each answering errors in its own shape. */
export type Face = 'oauth' | 'greenfield' | 'payment' | 'console' | 'wallet';

/**
 * The table: the first prefix a path starts with names its face; the wallet envelope at the root answers the
 * rest (the wallet API, the dashboard API, partners, withdrawals and the hosted pages). RFC 6749 under /oauth/;
 * `{code, message}` on the BTCPay Greenfield API's paths (src/greenfield), whose clients read nothing else; problem
 * details elsewhere under /api/ (payment API v1); HTML pages under /console (src/console).
 */
const FACE_BY_PREFIX: ReadonlyArray<readonly [Face, RegExp]> = [
  ['oauth', /^\/oauth\//],
  // Everything under /api/v1 but payment API v1's own /api/v1/payment (which keeps problem details).
  ['greenfield', /^\/api\/v1(\/(?!payment(\/|\?|$))|\?|$)/],
  ['payment', /^\/api\//],
  ['console', /^\/console(\/|\?|$)/],
];

/** The face of a URL; an absolute-form URL (`http://host/api/…`) is judged by its path. */
export function faceOf(url: string): Face {
  const path = url.startsWith('/') ? url : url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
  return FACE_BY_PREFIX.find(([, prefix]) => prefix.test(path))?.[0] ?? 'wallet';
}

/** The faces above http/ (src/greenfield, src/console) install their renderer when their routes are registered. */
export type LateFace = 'greenfield' | 'console';

/** Every face's renderer, by face. */
export class ErrorFaces {
  readonly wallet: FaceRenderer;
  private readonly faces: Record<Face, FaceRenderer>;

  constructor(readonly publicUrl: string) {
    const wallet = walletFace(publicUrl);
    this.wallet = wallet;
    // Until a face above installs its own, its paths are answered like the root's.
    this.faces = { wallet, payment: problemFace(publicUrl), oauth: oauthFace(wallet), greenfield: wallet, console: wallet };
  }

  /** Installs the renderer of a face whose code lives above http/. */
  use(face: LateFace, renderer: FaceRenderer): void {
    this.faces[face] = renderer;
  }

  /** The renderer of a face. */
  get(face: Face): FaceRenderer {
    return this.faces[face];
  }

  /** The renderer of the face a URL names. */
  of(url: string): FaceRenderer {
    return this.faces[faceOf(url)];
  }
}
