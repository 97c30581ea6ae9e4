// Makes sure Debian's PostgreSQL 15 server (with its server headers) and the pgvector extension are
// installed, for the PostgreSQL tests of packages/store-postgres (team mode, issue 19). The test
// command must work on a fresh machine with only Node + npm: Debian packages PostgreSQL 15 but not
// pgvector, so pgvector is built from the vendored release archive beside the repository
// (../shared/vendor/pgvector-0.8.6.tar.gz, see its README) in a temp folder — its source never
// enters the repository. Runs apt and `make install` only when something is missing and we are root.
// Idempotent: a second run prints that everything is present and changes nothing.
import { execFileSync, execSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PG_MAJOR = 15;
const PG_BIN = `/usr/lib/postgresql/${PG_MAJOR}/bin`;
const PG_CONFIG = `${PG_BIN}/pg_config`;
const PGVECTOR_VERSION = '0.8.6';
const PGVECTOR_SHA256 = '5743dac39fdfa740533cf95e71b033bd5513b71dda194b3cf19464ccbf76f3fb';
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const archive = process.env.RECALL_PGVECTOR_ARCHIVE ?? join(repoRoot, '..', 'shared', 'vendor', `pgvector-${PGVECTOR_VERSION}.tar.gz`);
const tag = '[ensure-postgres]';

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(`Usage: node tooling/scripts/ensure-postgres.mjs

Makes sure the PostgreSQL tests can run on this machine:
  1. Debian packages postgresql-${PG_MAJOR} and postgresql-server-dev-${PG_MAJOR} (apt-get, as root, when missing);
  2. the pgvector extension (vector.control in \`${PG_CONFIG} --sharedir\`/extension): when missing,
     built from ${archive}
     (sha256 checked) in a temp folder with \`make OPTFLAGS="" && make install\`, as root.
Prints what it did; does nothing when everything is present. Not root and something missing: exits 1
with what to install. RECALL_PGVECTOR_ARCHIVE overrides the archive path.`);
  process.exit(0);
}

const isRoot = process.getuid?.() === 0;

function fail(message) {
  console.error(`${tag} ${message}`);
  process.exit(1);
}

// 1. The server and its headers. postgresql-client-15 already ships pg_config and pgxs.mk, so the
//    server headers (postgres.h) are what tells whether postgresql-server-dev-15 is there.
const needs = [
  { pkg: `postgresql-${PG_MAJOR}`, present: () => existsSync(`${PG_BIN}/initdb`) && existsSync(`${PG_BIN}/postgres`) },
  { pkg: `postgresql-server-dev-${PG_MAJOR}`, present: () => existsSync(PG_CONFIG) && existsSync(`/usr/include/postgresql/${PG_MAJOR}/server/postgres.h`) },
];
const missing = needs.filter((n) => !n.present()).map((n) => n.pkg);
if (missing.length > 0) {
  if (!isRoot) fail(`missing Debian package(s) ${missing.join(', ')} and we are not root: install them (apt-get install ${missing.join(' ')}) to run the PostgreSQL tests.`);
  console.log(`${tag} installing ${missing.join(' ')} (the PostgreSQL tests need them)...`);
  execSync(`apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${missing.join(' ')}`, { stdio: 'inherit' });
  const still = needs.filter((n) => !n.present()).map((n) => n.pkg);
  if (still.length > 0) fail(`apt-get finished but ${still.join(', ')} still look missing (${PG_BIN}).`);
} else {
  console.log(`${tag} postgresql-${PG_MAJOR} and postgresql-server-dev-${PG_MAJOR} are installed`);
}

// 2. pgvector, built against that server.
const sharedir = execFileSync(PG_CONFIG, ['--sharedir'], { encoding: 'utf8' }).trim();
const control = join(sharedir, 'extension', 'vector.control');
if (existsSync(control)) {
  const version = /default_version\s*=\s*'([^']+)'/.exec(readFileSync(control, 'utf8'))?.[1] ?? 'unknown';
  console.log(`${tag} pgvector ${version} is installed (${control})`);
  process.exit(0);
}
if (!existsSync(archive)) fail(`pgvector is not installed (${control} missing) and its archive ${archive} is not there (shared/vendor beside the repository).`);
if (!isRoot) fail(`pgvector is not installed (${control} missing) and we are not root: build it as root from ${archive} (make OPTFLAGS="" && make install).`);
const digest = createHash('sha256').update(readFileSync(archive)).digest('hex');
if (digest !== PGVECTOR_SHA256) fail(`${archive} has sha256 ${digest}, expected ${PGVECTOR_SHA256}: not the vendored pgvector ${PGVECTOR_VERSION}.`);

const work = mkdtempSync(join(tmpdir(), 'recall-pgvector-'));
try {
  console.log(`${tag} building pgvector ${PGVECTOR_VERSION} from ${archive} in ${work} (about 30 s)...`);
  execFileSync('tar', ['-xzf', archive, '-C', work], { stdio: 'inherit' });
  const src = join(work, `pgvector-${PGVECTOR_VERSION}`);
  // OPTFLAGS="" leaves out -march=native, so the built extension also runs on another CPU.
  const make = (...args) => execFileSync('make', [`PG_CONFIG=${PG_CONFIG}`, 'OPTFLAGS=', ...args], { cwd: src, stdio: ['ignore', 'ignore', 'inherit'] });
  make('-j2');
  make('install');
} finally {
  rmSync(work, { recursive: true, force: true });
}
if (!existsSync(control)) fail(`make install finished but ${control} is still missing.`);
console.log(`${tag} installed pgvector ${PGVECTOR_VERSION} into ${sharedir}/extension`);
