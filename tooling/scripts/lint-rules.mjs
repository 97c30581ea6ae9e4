// Project rules that no off-the-shelf linter checks for us, run by `pnpm lint` next to
// `turbo boundaries`: config is read in one place (process.env only in apps/cli/src/config.ts, the composition root),
// tests never mock modules, package entry points use explicit named exports, SQLite is opened
// only by packages/schema's openDatabase(), SQL is written only in the storage adapters, and a
// package's core never imports its own SQLite adapter folder.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';

const files = execSync('git ls-files -co --exclude-standard -- "*.ts" "*.tsx" "*.mjs"', { encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && !f.includes('node_modules/') && !f.includes('/dist/'));

// --- SQL only in the storage adapters (issue 19) ---
// Scope: the shipped source of packages/* and apps/* (`src/`). Tests, tests-e2e and tooling (bench,
// eval, test support) may keep SQL: they set up or inspect fixtures of one backend on purpose and
// ship nowhere. Everything else reads and writes through @recall/storage-ports. The homes are the
// storage packages and adapter folders (drizzle's sqlite-core / pg-core split is the model: one
// folder per dialect); there are no per-file exceptions.
const SQL_HOMES = [
  'packages/store/', // the SQLite adapter
  'packages/store-postgres/', // the PostgreSQL adapter
  'packages/schema/', // tables, migrations, openDatabase()
  'packages/semantic/src/sqlite/', // semantic's SQLite adapter folder (@recall/semantic/sqlite): the index's own rows
  'packages/importers/src/sources/', // readers of other tools' own files (Hermes' state.db, read-only): source formats, not storage
];
const SQL_HOMES_TEXT = 'packages/store, packages/store-postgres, packages/schema, and the adapter folders packages/semantic/src/sqlite/ and packages/importers/src/sources/';

// --- A package's core never imports its own SQLite adapter folder ---
// `packages/<pkg>/src/sqlite/` is an adapter of the ports: it imports the core (pure helpers such
// as the chunker or the scan kernels), and callers compose it from `@recall/<pkg>/sqlite`. Any
// other file of `packages/<pkg>/src/` importing it (relatively or by the package's own name)
// would put SQLite back under the core.
const ADAPTER_DIR = 'sqlite';
const packageNames = new Map(
  readdirSync('packages', { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(`packages/${d.name}/package.json`))
    .map((d) => [d.name, JSON.parse(readFileSync(`packages/${d.name}/package.json`, 'utf8')).name]),
);
/** Module specifiers of `code`: static imports and re-exports, `import()`, side-effect imports. */
function specifiers(code) {
  return [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)(['"])([^'"\n]+)\1/gm)].map((m) => m[2]);
}
/** The specifier of `file` that reaches into its own package's adapter folder, or null. */
function coreToAdapterImport(file, code) {
  const m = /^packages\/([^/]+)\/src\//.exec(file);
  if (!m || file.startsWith(`packages/${m[1]}/src/${ADAPTER_DIR}/`)) return null;
  const adapterDir = `packages/${m[1]}/src/${ADAPTER_DIR}`;
  const self = packageNames.get(m[1]);
  for (const spec of specifiers(code)) {
    if (spec.startsWith('.')) {
      const target = posix.normalize(posix.join(posix.dirname(file), spec));
      if (target === adapterDir || target.startsWith(`${adapterDir}/`)) return spec;
    } else if (self && (spec === `${self}/${ADAPTER_DIR}` || spec.startsWith(`${self}/${ADAPTER_DIR}/`))) return spec;
  }
  return null;
}
/** String and template literals of `code` (approximate: enough to find SQL text). */
function literals(code) {
  return code.match(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g) ?? [];
}
/** A statement keyword first, and a clause that only SQL has after it. */
const SQL_TEXT =
  /^[\s(]*(?:select\s[\s\S]*?\b(?:from|limit|set_config|count\s*\(|pg_\w+\s*\()|insert\s+(?:or\s+\w+\s+)?into\s|update\s+["\w.]+\s+set\s|delete\s+from\s|pragma\s|create\s+(?:unique\s+)?(?:table|index|trigger|view|virtual\s+table)\s|drop\s+(?:table|index|trigger)\s|alter\s+table\s|with\s+(?:recursive\s+)?\w+\s*(?:\([^)]*\))?\s+as\s*\(|(?:begin(?:\s+immediate|\s+deferred|\s+read\s+only)?|commit|rollback|savepoint\s+\w+|release\s+savepoint)\s*$)/i;
/** What the file does with SQL, or null: a database handle's SQL calls, drizzle's sql``, or SQL text in a literal. */
function sqlUse(code) {
  const call = code.match(/\.raw\s*\.\s*(?:prepare|exec|pragma|transaction)\s*\(|\.prepare\s*\(\s*['"`]|(?<![.\w])sql\s*`|\bsql\.raw\s*\(/);
  if (call) return `calls ${call[0].replace(/\s+/g, '')}…`;
  for (const literal of literals(code)) {
    const text = literal.slice(1, -1).replace(/\$\{[^}]*\}/g, ' x ');
    if (SQL_TEXT.test(text)) return `has the SQL text ${JSON.stringify(text.trim().replace(/\s+/g, ' ').slice(0, 60))}`;
  }
  return null;
}

const problems = [];
for (const file of files) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    continue;
  }
  // Comments may mention what the rules forbid; only code counts.
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const isTest = /(^|\/)test\//.test(file) || file.startsWith('tests-e2e/');
  if (/\bvi\.mock\(|\bjest\.mock\(/.test(code)) problems.push(`${file}: module mocking (vi.mock) is not allowed; use real SQLite files and loopback servers`);
  if (file.endsWith('src/index.ts') && /^export \* from/m.test(code)) problems.push(`${file}: use explicit named exports, not "export *"`);
  if (!isTest && (file.startsWith('packages/') || file.startsWith('apps/cli/')) && file.includes('/src/') && /process\.env\b/.test(code) && file !== 'apps/cli/src/config.ts') {
    problems.push(`${file}: process.env is read only in apps/cli/src/config.ts`);
  }
  if (!isTest && /^(packages|apps)\/[^/]+\/src\//.test(file) && !SQL_HOMES.some((home) => file.startsWith(home))) {
    const use = sqlUse(code);
    if (use) {
      problems.push(
        `${file}: ${use} — SQL is written only in the storage adapters (${SQL_HOMES_TEXT}); read and write through @recall/storage-ports, or add a named function to both adapters and the conformance suite`,
      );
    }
  }
  if (!isTest) {
    const spec = coreToAdapterImport(file, code);
    if (spec) {
      problems.push(
        `${file}: imports ${JSON.stringify(spec)} — a package's core uses only the storage ports and never imports its own adapter folder (src/${ADAPTER_DIR}/); the adapter imports the core, and callers compose it from the package's /${ADAPTER_DIR} entry`,
      );
    }
  }
  if (!isTest && file.includes('/src/') && !file.startsWith('packages/schema/') && /new Database\(/.test(code)) {
    problems.push(`${file}: open SQLite through openDatabase() from @recall/schema`);
  }
}
if (problems.length > 0) {
  console.error(`lint-rules: ${problems.length} problem(s)\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  process.exit(1);
}
console.log(`lint-rules: ${files.length} files checked, no problems`);
