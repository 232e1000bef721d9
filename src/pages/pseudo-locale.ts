// The pseudo-locale (en-XA): English with accents, every message wrapped in ⟦ ⟧ and lengthened by 40 %, so a
// test sees at once any word that bypassed the catalogue and any layout that clips longer languages.
// ICU syntax (placeholders, plural and select blocks) is left intact; only literal text changes.
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import type { Catalogue } from './messages.ts';

const ACCENTED: Record<string, string> = {
  a: 'á', e: 'é', i: 'í', o: 'ó', u: 'ú', c: 'ç', n: 'ñ', y: 'ý', A: 'Å', E: 'É', I: 'Î', O: 'Ö', U: 'Ü', C: 'Ç', N: 'Ñ',
};

function accent(text: string): string {
  return text.replace(/[aeiouycnAEIOUCN]/g, (ch) => ACCENTED[ch] ?? ch);
}

/** Quotes literal text for ICU (apostrophes doubled, syntax characters quoted). */
function literal(text: string): string {
  return text.replace(/'/g, "''").replace(/[{}#<]/g, (ch) => `'${ch}'`);
}

function print(elements: MessageFormatElement[], inPlural: boolean): string {
  return elements
    .map((el) => {
      switch (el.type) {
        case TYPE.literal:
          return literal(accent(el.value));
        case TYPE.argument:
          return `{${el.value}}`;
        case TYPE.pound:
          return inPlural ? '#' : "'#'";
        case TYPE.plural:
        case TYPE.select: {
          const kind = el.type === TYPE.select ? 'select' : el.pluralType === 'ordinal' ? 'selectordinal' : 'plural';
          const offset = el.type === TYPE.plural && el.offset ? ` offset:${el.offset}` : '';
          const options = Object.entries(el.options)
            .map(([k, o]) => `${k} {${print(o.value, el.type === TYPE.plural)}}`)
            .join(' ');
          return `{${el.value}, ${kind},${offset} ${options}}`;
        }
        default:
          throw new Error(`pseudo-locale: unsupported ICU element in catalogue`);
      }
    })
    .join('');
}

/** One message in the pseudo-locale: accented, padded by 40 % of its length, wrapped in ⟦ ⟧. */
export function pseudoMessage(source: string): string {
  const ast = parse(source);
  const pad = '~'.repeat(Math.ceil(source.length * 0.4));
  return `⟦${print(ast, false)}${pad}⟧`;
}

/** The pseudo-locale's catalogue, derived from English. */
export function pseudoCatalogue(english: Catalogue): Catalogue {
  return Object.fromEntries(Object.entries(english).map(([k, v]) => [k, pseudoMessage(v)]));
}
