// Regenerates test/vectors/bip{380,381,382,383,386,389,86}.json from the BIPs' own text, so no vector is typed by
// hand. Usage: node test/vectors/descriptor-vectors-regenerate.mjs <path to a git clone of github.com/bitcoin/bips>
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bips = process.argv[2];
if (!bips) throw new Error('usage: descriptor-vectors-regenerate.mjs <bips git dir>');
const here = dirname(fileURLToPath(import.meta.url));
const git = (...args) => execFileSync('git', ['--git-dir', join(bips, bips.endsWith('.git') || bips.endsWith('repo') ? '' : '.git'), ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
const commit = git('rev-parse', 'HEAD').trim();
const text = (file) => git('show', `HEAD:${file}`);
const source = (n, file) => `BIP ${n}, https://github.com/bitcoin/bips/blob/${commit}/${file}`;
const tt = (line) => [...line.matchAll(/<tt>(.*?)<\/tt>/g)].map((m) => m[1].replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'));
const section = (body, start, end) => {
  const a = body.indexOf(start);
  if (a < 0) throw new Error(`no section ${start}`);
  const b = end ? body.indexOf(end, a + start.length) : -1;
  return body.slice(a + start.length, b < 0 ? undefined : b);
};
const write = (name, data) => writeFileSync(join(here, name), `${JSON.stringify(data, null, 2)}\n`);

// "* <tt>desc</tt>" followed by "** <tt>script</tt>" lines.
function validWithScripts(block) {
  const out = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('** ')) out[out.length - 1].scripts.push(...tt(line));
    else if (line.startsWith('* ')) out.push({ descriptor: tt(line).at(-1), scripts: [] });
  }
  return out;
}
function invalidWithDescriptions(block) {
  return block
    .split('\n')
    .filter((l) => l.startsWith('* '))
    .map((l) => {
      const parts = tt(l);
      return { description: l.slice(2, l.lastIndexOf('<tt>')).replace(/<\/?tt>/g, '').replace(/:\s*$/, '').trim(), descriptor: parts.at(-1) };
    });
}

// BIP 380: checksums and key expressions.
{
  const body = text('bip-0380.mediawiki');
  const tests = section(body, '==Test Vectors==', '==Backwards Compatibility==');
  const checksum = section(tests, 'The following tests cover the checksum and character set:', 'The following tests cover key expressions:');
  const lines = checksum.split('\n').filter((l) => l.startsWith('* '));
  const checksums = lines.map((l) => ({ description: l.slice(2, l.indexOf(':')).trim(), descriptor: tt(l)[0], valid: /^\* (Valid checksum|No checksum)/.test(l) }));
  const keyLine = (l) => ({ description: l.slice(2, l.lastIndexOf('<tt>')).replace(/<\/?tt>/g, '').replace(/:\s*$/, '').trim(), key: tt(l).at(-1) });
  const valid = section(tests, 'Valid expressions:', 'Invalid expression:').split('\n').filter((l) => l.startsWith('* ')).map(keyLine);
  const invalid = section(tests, 'Invalid expression:').split('\n').filter((l) => l.startsWith('* ')).map(keyLine);
  write('bip380.json', { source: source(380, 'bip-0380.mediawiki'), checksums, validKeys: valid, invalidKeys: invalid });
}

for (const n of [381, 382, 383, 386]) {
  const file = `bip-0${n}.mediawiki`;
  const tests = section(text(file), '==Test Vectors==', '==Backwards Compatibility==');
  const invalidMark = tests.search(/\nInvalid [Dd]escriptors/);
  const validBlock = tests.slice(0, invalidMark);
  const invalidBlock = tests.slice(invalidMark).split('\n').slice(2).join('\n');
  write(`bip${n}.json`, { source: source(n, file), valid: validWithScripts(validBlock), invalid: invalidWithDescriptions(invalidBlock) });
}

// BIP 389: multipath descriptors and what they expand into.
{
  const file = 'bip-0389.mediawiki';
  const tests = section(text(file), '==Test Vectors==', '==Backwards Compatibility==');
  const [validBlock, invalidBlock] = tests.split(/\nInvalid descriptors\n/);
  const valid = validWithScripts(validBlock).map((v) => ({ descriptor: v.descriptor, expansions: v.scripts }));
  write('bip389.json', { source: source(389, file), valid, invalid: invalidWithDescriptions(invalidBlock) });
}

// BIP 86: the account key and its first receive/change outputs.
{
  const file = 'bip-0086.mediawiki';
  const pre = section(section(text(file), '==Test vectors==', '==Reference=='), '<pre>', '</pre>');
  const field = (block, name) => new RegExp(`^${name}\\s*=\\s*(\\S.*)$`, 'm').exec(block)?.[1].trim();
  const [head, ...accounts] = pre.split(/\n\/\/ /);
  const account = accounts.find((a) => a.startsWith('Account 0, root'));
  const outputs = accounts
    .filter((a) => /address = m\//.test(a))
    .map((a) => {
      const path = /= (m\/\S+)/.exec(a)[1];
      const steps = path.split('/');
      return {
        path,
        branch: Number(steps.at(-2)),
        index: Number(steps.at(-1)),
        internalKey: field(a, 'internal_key'),
        outputKey: field(a, 'output_key'),
        scriptPubKey: field(a, 'scriptPubKey'),
        address: field(a, 'address'),
      };
    });
  write('bip86.json', {
    source: source(86, file),
    mnemonic: field(head, 'mnemonic'),
    rootXpub: field(head, 'rootpub'),
    accountPath: "m/86'/0'/0'",
    accountXpub: field(account, 'xpub'),
    outputs,
  });
}
