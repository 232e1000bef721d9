// The app's route table as `METHOD url` keys (Fastify's url patterns), for tests that must cover every route of a
// face (store teams' matrices), so a new route without an entry fails them.
import type { FastifyInstance } from 'fastify';

/** Every `METHOD url` of the app's route table (Fastify's printRoutes tree, one method at a time). */
export function routeTable(app: FastifyInstance): string[] {
  const out: string[] = [];
  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
    const stack: string[] = [];
    for (const line of app.printRoutes({ method, commonPrefix: false }).split('\n')) {
      const at = line.indexOf('── ');
      if (at < 0) continue;
      const depth = Math.round(at / 4);
      const m = /^(\S+)(?: \(([^)]*)\))?/.exec(line.slice(at + 3))!;
      const full = (depth > 0 ? stack[depth - 1]! : '') + m[1]!;
      stack[depth] = full;
      stack.length = depth + 1;
      if (m[2]?.split(', ').includes(method)) out.push(`${method} ${full}`);
    }
  }
  return out;
}
