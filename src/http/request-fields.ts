// Partner and withdrawal operations take their fields from the JSON body, and GET ones (ops 15, 17 and the
// partner status) from a JSON body or the query string (DESIGN.md section 7). Fastify never reads a GET
// body, so this hook does, under the same size limit, and hands routes one merged field map.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../core/domain-errors.ts';
import { JsonSyntaxError, parseExactJson, isJsonObject } from '../money/exact-json.ts';

/** A request's fields and which of them came from the query string (always strings there). */
export interface RequestFields {
  values: Record<string, unknown>;
  fromQuery: Set<string>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the requestFields hook. */
    fields?: RequestFields;
  }
}

/** Parses JSON text exactly (numbers stay decimal); a syntax error is the caller's mistake (code 201). */
export function parseExactFields(text: string): Record<string, unknown> {
  let value;
  try {
    value = parseExactJson(text);
  } catch (err) {
    const detail = err instanceof JsonSyntaxError ? err.message : 'malformed';
    throw new DomainError('invalid', `Wrong or missing argument: the body is not valid JSON (${detail})`);
  }
  if (!isJsonObject(value)) throw new DomainError('invalid', 'Wrong or missing argument: the body must be a JSON object');
  return value as Record<string, unknown>;
}

async function readRawBody(request: FastifyRequest, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.raw) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buf.length;
    if (size > limit) throw new DomainError('invalid', `Wrong or missing argument: the request body is larger than ${limit} bytes`);
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A preValidation hook setting `request.fields`: the parsed body (POST) or, for GET, a JSON body read here
 * merged with the query string. A field given in both places must not differ.
 */
export function requestFields(limit: number) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    let body: Record<string, unknown> = {};
    if (request.method === 'GET' || request.method === 'HEAD') {
      const text = await readRawBody(request, limit);
      if (text.trim() !== '') body = parseExactFields(text);
    } else if (request.body !== undefined && request.body !== null) {
      if (typeof request.body !== 'object' || Array.isArray(request.body)) {
        throw new DomainError('invalid', 'Wrong or missing argument: the body must be a JSON object');
      }
      body = request.body as Record<string, unknown>;
    }
    const values: Record<string, unknown> = { ...body };
    const fromQuery = new Set<string>();
    const query = (request.query ?? {}) as Record<string, unknown>;
    for (const [k, v] of Object.entries(query)) {
      if (typeof v !== 'string') throw new DomainError('invalid', `Wrong or missing argument: ${k} is given more than once`);
      if (k in body) {
        if (body[k] !== v) throw new DomainError('invalid', `Wrong or missing argument: ${k} differs between the query and the body`);
        continue;
      }
      values[k] = v;
      fromQuery.add(k);
    }
    request.fields = { values, fromQuery };
  };
}

/** The fields the requestFields hook set (an empty map when the route has no such hook). */
export function fieldsOf(request: FastifyRequest): RequestFields {
  return request.fields ?? { values: {}, fromQuery: new Set() };
}
