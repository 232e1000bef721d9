// A small RFC 8259 JSON parser that keeps number tokens as their source text, so a
// provider's 50000.12 never passes through a binary float. JSON.parse cannot do this
// on Node 20 (no reviver `context.source`).
import { decimalFromNumberLiteral, MAX_EXPONENT } from './decimal.ts';

/** A JSON number kept as its literal source text. */
export class JsonNumber {
  constructor(readonly text: string) {}

  /** The exact value as a plain decimal string (exponents expanded, "-0" as "0"). */
  toDecimal(): string {
    return decimalFromNumberLiteral(this.text);
  }
}

/** A parsed JSON value; objects have no prototype, so keys like "__proto__" are plain keys. */
export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | JsonObject;
/** A parsed JSON object. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/** Raised for text that is not valid JSON, with the offset of the problem. */
export class JsonSyntaxError extends SyntaxError {
  constructor(message: string, readonly offset: number) {
    super(`${message} at offset ${offset}`);
    this.name = 'JsonSyntaxError';
  }
}

const MAX_DEPTH = 64;
const NUMBER_RE = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/** Parses JSON text exactly: numbers become {@link JsonNumber}, everything else as JSON.parse would. */
export function parseExactJson(text: string): JsonValue {
  const p = new Parser(text);
  p.ws();
  const value = p.value(0);
  p.ws();
  if (p.pos !== text.length) p.fail('unexpected text after the JSON value');
  return value;
}

/** True for a JSON object (not an array, not null). */
export function isJsonObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);
}

/** The exact decimal text of a JSON number, or of a string holding a number literal; undefined for anything else. */
export function numericText(v: JsonValue | undefined): string | undefined {
  if (v instanceof JsonNumber) return v.toDecimal();
  if (typeof v === 'string') {
    NUMBER_RE.lastIndex = 0;
    const m = NUMBER_RE.exec(v);
    if (m && m[0].length === v.length) return decimalFromNumberLiteral(v);
  }
  return undefined;
}

class Parser {
  pos = 0;
  constructor(private readonly s: string) {}

  fail(message: string): never {
    throw new JsonSyntaxError(message, this.pos);
  }

  ws(): void {
    while (this.pos < this.s.length) {
      const c = this.s.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.pos++;
      else break;
    }
  }

  value(depth: number): JsonValue {
    if (depth > MAX_DEPTH) this.fail('JSON nested too deeply');
    const c = this.s[this.pos];
    switch (c) {
      case '{': return this.object(depth);
      case '[': return this.array(depth);
      case '"': return this.string();
      case 't': return this.word('true', true);
      case 'f': return this.word('false', false);
      case 'n': return this.word('null', null);
      case undefined: return this.fail('unexpected end of JSON');
      default:
        if (c === '-' || (c >= '0' && c <= '9')) return this.number();
        return this.fail(`unexpected character ${JSON.stringify(c)}`);
    }
  }

  object(depth: number): JsonObject {
    const out = Object.create(null) as JsonObject;
    this.pos++;
    this.ws();
    if (this.s[this.pos] === '}') {
      this.pos++;
      return out;
    }
    for (;;) {
      if (this.s[this.pos] !== '"') this.fail('expected a string key');
      const key = this.string();
      this.ws();
      if (this.s[this.pos] !== ':') this.fail('expected ":"');
      this.pos++;
      this.ws();
      out[key] = this.value(depth + 1);
      this.ws();
      const c = this.s[this.pos];
      this.pos++;
      if (c === '}') return out;
      if (c !== ',') { this.pos--; this.fail('expected "," or "}"'); }
      this.ws();
    }
  }

  array(depth: number): JsonValue[] {
    const out: JsonValue[] = [];
    this.pos++;
    this.ws();
    if (this.s[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth + 1));
      this.ws();
      const c = this.s[this.pos];
      this.pos++;
      if (c === ']') return out;
      if (c !== ',') { this.pos--; this.fail('expected "," or "]"'); }
      this.ws();
    }
  }

  string(): string {
    const start = ++this.pos;
    let out = '';
    let chunk = start;
    for (;;) {
      if (this.pos >= this.s.length) this.fail('unterminated string');
      const c = this.s.charCodeAt(this.pos);
      if (c === 0x22) {
        out += this.s.slice(chunk, this.pos);
        this.pos++;
        return out;
      }
      if (c < 0x20) this.fail('control character in string');
      if (c !== 0x5c) {
        this.pos++;
        continue;
      }
      out += this.s.slice(chunk, this.pos);
      const e = this.s[this.pos + 1];
      this.pos += 2;
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          const hex = this.s.slice(this.pos, this.pos + 4);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('bad \\u escape');
          out += String.fromCharCode(Number.parseInt(hex, 16));
          this.pos += 4;
          break;
        }
        default:
          this.pos -= 2;
          this.fail('bad escape in string');
      }
      chunk = this.pos;
    }
  }

  number(): JsonNumber {
    NUMBER_RE.lastIndex = this.pos;
    const m = NUMBER_RE.exec(this.s);
    if (!m) this.fail('bad number');
    const next = this.s[this.pos + m[0].length];
    if (next !== undefined && /[0-9.eE+-]/.test(next)) this.fail('bad number');
    // Every number must be expandable to its exact decimal (JsonNumber.toDecimal): 1e999 is refused here, as
    // malformed input, rather than throwing wherever a field is read.
    const exp = /[eE]([+-]?[0-9]+)$/.exec(m[0]);
    if (exp && Math.abs(Number.parseInt(exp[1]!, 10)) > MAX_EXPONENT) this.fail('number out of range');
    this.pos += m[0].length;
    return new JsonNumber(m[0]);
  }

  word<T extends boolean | null>(word: string, value: T): T {
    if (this.s.startsWith(word, this.pos)) {
      this.pos += word.length;
      return value;
    }
    return this.fail('unexpected literal');
  }
}
