// Every catalogue in this directory (the translators' too) against English: same keys, messages that parse, no
// placeholder English lacks, and each plural with the categories the language's plural rules use.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { DEFAULT_LANGUAGE, LANGUAGES } from './index.ts';
import { pseudoCatalogue } from '../pseudo-locale.ts';

const DIR = new URL('./', import.meta.url);
const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));
const load = (file: string) => JSON.parse(readFileSync(new URL(file, DIR), 'utf8')) as Record<string, unknown>;
const english = load(`${DEFAULT_LANGUAGE}.json`) as Record<string, string>;

/** Argument names of a message, and its plural blocks' option keys. */
function shape(elements: MessageFormatElement[], args = new Set<string>(), plurals: string[][] = []) {
  for (const el of elements) {
    if (el.type === TYPE.argument || el.type === TYPE.number || el.type === TYPE.date || el.type === TYPE.time) args.add(el.value);
    if (el.type === TYPE.plural || el.type === TYPE.select) {
      args.add(el.value);
      if (el.type === TYPE.plural) plurals.push(Object.keys(el.options));
      for (const option of Object.values(el.options)) shape(option.value, args, plurals);
    }
    if (el.type === TYPE.tag) shape(el.children, args, plurals);
  }
  return { args, plurals };
}

describe('message catalogues', () => {
  it('are each listed once in the language table, and every listed language has its file', () => {
    const tags = files.map((f) => f.slice(0, -'.json'.length)).sort();
    expect(LANGUAGES.map((l) => l.tag).sort()).toEqual(tags);
  });

  for (const file of files) {
    const tag = file.slice(0, -'.json'.length);
    describe(tag, () => {
      const catalogue = load(file);

      it('has exactly the English keys, each a string', () => {
        expect(Object.keys(catalogue).sort()).toEqual(Object.keys(english).sort());
        for (const [key, value] of Object.entries(catalogue)) expect(typeof value, key).toBe('string');
      });

      it('names itself as the picker shows it', () => {
        expect(catalogue['language.name']).toBe(LANGUAGES.find((l) => l.tag === tag)?.name);
      });

      it('has messages that parse, use only English placeholders and the plural forms the language needs', () => {
        const categories = new Intl.PluralRules(tag).resolvedOptions().pluralCategories;
        for (const [key, value] of Object.entries(catalogue)) {
          const source = english[key];
          if (typeof value !== 'string' || source === undefined) continue;
          let own: ReturnType<typeof shape> = { args: new Set<string>(), plurals: [] };
          expect(() => {
            own = shape(parse(value));
          }, `${tag} ${key} parses`).not.toThrow();
          const allowed = shape(parse(source)).args;
          for (const arg of own.args) expect(allowed.has(arg), `${tag} ${key}: placeholder {${arg}} is not in English`).toBe(true);
          for (const options of own.plurals) {
            for (const category of categories) expect(options, `${tag} ${key}: plural form "${category}"`).toContain(category);
          }
        }
      });
    });
  }

  it('derive a pseudo-locale that keeps every placeholder and is at least 40 % longer', () => {
    const pseudo = pseudoCatalogue(english);
    for (const [key, source] of Object.entries(english)) {
      const derived = pseudo[key]!;
      expect([...shape(parse(derived)).args].sort(), key).toEqual([...shape(parse(source)).args].sort());
      expect(derived.length, key).toBeGreaterThanOrEqual(Math.floor(source.length * 1.4));
    }
  });
});
