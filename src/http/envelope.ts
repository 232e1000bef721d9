/** A wallet API success: `return: "0"`, `status: "OK"`, then the operation's fields. */
export function ok<T extends object>(fields?: T): { return: '0'; status: 'OK' } & T {
  return { return: '0', status: 'OK', ...(fields ?? ({} as T)) };
}

/** A withdrawal or partner operation success, which carries `result` instead of `return`. */
export function okResult<T extends object>(fields?: T): { result: '0'; status: 'OK' } & T {
  return { result: '0', status: 'OK', ...(fields ?? ({} as T)) };
}

/** Per-route choice of how errors are written: the wallet envelope, the `result` envelope, or RFC 9457. */
export type ErrorFormat = 'envelope' | 'result' | 'problem';

declare module 'fastify' {
  interface FastifyContextConfig {
    errorFormat?: ErrorFormat;
  }
}
