import {execFileSync, spawnSync} from 'node:child_process';
import {cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync} from 'node:fs';
import {delimiter, dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {scratchDir} from '../helpers/cli.ts';
import {Tmux} from '../helpers/tmux.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
	version: string;
	dependencies: Record<string, string>;
};
const work = scratchDir('cr-install-');
const prefix = join(work, 'prefix');
const prebuilds = join(work, 'prebuilds');
const noCompilerBin = join(work, 'no-compiler-bin');
const tmux = new Tmux();

/** What node-gyp would need to compile: none of these is reachable during the install. */
const COMPILERS = /^(cc|c\+\+|g\+\+|gcc|clang|clang\+\+|make|gmake|cpp|ld)(-[\d.]+)?$/;

/**
 * A PATH like the user's, with every program but the compilers and make: one folder of links to
 * what each PATH folder holds (the first of a name wins, as the shell would find it).
 */
function pathWithoutCompilers(): string {
	mkdirSync(noCompilerBin, {recursive: true});
	for (const folder of (process.env['PATH'] ?? '').split(delimiter)) {
		let names: string[];
		try {
			names = readdirSync(folder);
		} catch {
			continue;
		}
		for (const name of names) {
			if (COMPILERS.test(name) || /-linux-gnu-(gcc|g\+\+|cc|c\+\+)/.test(name)) continue;
			if (!existsSync(join(noCompilerBin, name))) symlinkSync(join(folder, name), join(noCompilerBin, name));
		}
	}
	return noCompilerBin;
}

/**
 * Installing compiles better-sqlite3 when no prebuilt binary can be fetched (minutes; this machine
 * cannot reach GitHub, where its binaries live). prebuild-install first looks in a local folder
 * named by this variable, so the binary this checkout already built is offered there under the
 * name it looks for: the install then takes it instead of compiling (docs/install.md).
 */
function installEnv(): NodeJS.ProcessEnv {
	return {...process.env, npm_config_better_sqlite3_local_prebuilds: prebuilds, NODE_ENV: '', VITEST: ''};
}

let installOutput = '';

function npm(args: readonly string[], cwd: string): string {
	const result = spawnSync('npm', [...args], {cwd, env: installEnv(), encoding: 'utf8'});
	if (result.status !== 0) throw new Error(`npm ${args.join(' ')} exited ${result.status}:\n${result.stdout}\n${result.stderr}`);
	return result.stdout;
}

/** The checkout's files as git sees them (tracked and new, not ignored), so packing here never touches the tests' own dist/. */
function copyCheckout(to: string): void {
	const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], {cwd: ROOT, encoding: 'utf8'}).split('\0');
	for (const file of files.filter(name => name !== '')) {
		mkdirSync(dirname(join(to, file)), {recursive: true});
		cpSync(join(ROOT, file), join(to, file), {dereference: false});
	}
	// prepack builds with the dev dependencies this checkout already has.
	symlinkSync(join(ROOT, 'node_modules'), join(to, 'node_modules'));
}

/** The prebuilt binary better-sqlite3's installer looks for, made from the one this checkout built. */
function offerBuiltSqlite(): void {
	mkdirSync(prebuilds, {recursive: true});
	const name = `better-sqlite3-v${pkg.dependencies['better-sqlite3']}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
	execFileSync('tar', [
		'-czf',
		join(prebuilds, name),
		'-C',
		join(ROOT, 'node_modules', 'better-sqlite3'),
		'build/Release/better_sqlite3.node',
	]);
}

let tarball = '';

// Packing and installing as a user would: `npm pack` (its prepack builds dist/), then `npm install
// -g` of the tarball into a scratch prefix. The bound is what an npm install takes on a loaded
// 2-core machine (measured at about 70 s when fs-ext was compiled from source), not a race.
const INSTALL_MS = 8 * 60_000;

beforeAll(() => {
	const checkout = join(work, 'checkout');
	copyCheckout(checkout);
	offerBuiltSqlite();
	npm(['pack', '--pack-destination', work], checkout);
	tarball = join(work, readdirSync(work).find(name => name.endsWith('.tgz')) ?? '');
	const install = spawnSync(
		'npm',
		[
			'install',
			'-g',
			'--prefix',
			prefix,
			'--prefer-offline',
			'--no-audit',
			'--no-fund',
			// Production dependencies only, as any user's install: whatever the build bundles into
			// dist/ is a devDependency and must not be needed here (docs/architecture.md, "Dependencies").
			'--omit=dev',
			'--allow-scripts=better-sqlite3,fs-ext-extra-prebuilt',
			'--foreground-scripts',
			tarball,
		],
		{cwd: work, env: {...installEnv(), PATH: pathWithoutCompilers()}, encoding: 'utf8'},
	);
	installOutput = `${install.stdout}\n${install.stderr}`;
	if (install.status !== 0)
		throw new Error(`npm install -g exited ${install.status} with no compiler on the PATH:\n${installOutput}`);
}, INSTALL_MS);

afterAll(() => {
	tmux.kill();
	// The installed prefix and the copied checkout are large; leave nothing behind in the temp folder.
	rmSync(work, {recursive: true, force: true});
});

describe('installing the packed package', () => {
	it('needs no compiler: the kernel lock is prebuilt, better-sqlite3 takes the offered binary, and no script is left unreviewed', () => {
		const installed = join(prefix, 'lib', 'node_modules', 'controlroom', 'node_modules');
		// fs-ext-extra-prebuilt's install script found its shipped binary and built nothing.
		expect(installOutput).toMatch(/Using prebuilt binary: fs-ext-|Prebuilt binary works/);
		expect(existsSync(join(installed, 'fs-ext-extra-prebuilt', 'build'))).toBe(false);
		expect(existsSync(join(installed, 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'))).toBe(true);
		expect(installOutput).not.toMatch(/gyp info spawn|gyp ERR/);
		expect(installOutput).not.toContain('not yet covered by allowScripts');
	});

	it('packs bin/, dist/ (built by prepack) and docs/, and nothing of the sources or tests', () => {
		const listed = execFileSync('tar', ['-tzf', tarball], {encoding: 'utf8'}).split('\n');
		expect(listed).toContain('package/bin/controlroom');
		expect(listed).toContain('package/dist/cli/main.js');
		expect(listed).toContain('package/dist/producers/hook-main.cjs');
		expect(listed).toContain('package/docs/cli.md');
		expect(listed).toContain('package/README.md');
		expect(listed.filter(file => /^package\/(src|test|components|hooks)\//.test(file))).toEqual([]);
	});

	it('puts controlroom in the prefix bin, and it answers --version', () => {
		const result = spawnSync(join(prefix, 'bin', 'controlroom'), ['--version'], {encoding: 'utf8'});
		expect({status: result.status, stdout: result.stdout, stderr: result.stderr}).toEqual({
			status: 0,
			stdout: `${pkg.version}\n`,
			stderr: '',
		});
	});

	it('prints snapshot --json on an empty home, creating it', () => {
		const home = join(scratchDir(), 'home');
		const result = spawnSync(join(prefix, 'bin', 'controlroom'), ['snapshot', '--json'], {
			encoding: 'utf8',
			env: {...process.env, CONTROLROOM_HOME: home},
		});
		expect(result.stderr).toBe('');
		expect(result.status).toBe(0);
		expect(JSON.parse(result.stdout)).toMatchObject({version: 1, tasks: [], counts: {running: 0}});
		expect(readdirSync(home)).toContain('ledger.db');
	});

	it('installs only what runs: under 120 packages in the production tree, none of the bundled ones', () => {
		const tree = execFileSync('npm', ['ls', '-g', '--prefix', prefix, '--all', '--parseable'], {
			encoding: 'utf8',
			env: installEnv(),
		})
			.split('\n')
			.filter(line => line !== '');
		expect(tree.length).toBeLessThan(120);
		const installed = join(prefix, 'lib', 'node_modules', 'controlroom', 'node_modules');
		// Bundled into dist/ by the build (package.json's build script lists what stays external).
		for (const bundled of ['ink', 'react', 'zod', '@modelcontextprotocol/sdk', '@opentelemetry/api', 'string-width'])
			expect(existsSync(join(installed, bundled)), bundled).toBe(false);
		const bytes = Number(
			execFileSync('du', ['-sb', join(prefix, 'lib', 'node_modules', 'controlroom')], {encoding: 'utf8'}).split('\t')[0],
		);
		console.log(`production install: ${tree.length} lines of npm ls --all --parseable, ${(bytes / 1e6).toFixed(1)} MB`);
	});

	it('records a real Claude Code hook event from the installed hook, and status and snapshot show its session', () => {
		const home = join(scratchDir(), 'home');
		const env = {...process.env, CONTROLROOM_HOME: home};
		const bin = join(prefix, 'bin', 'controlroom');
		const hook = spawnSync(bin, ['hook'], {
			encoding: 'utf8',
			env,
			input: readFileSync(join(ROOT, 'test', 'fixtures', 'claude', 'SessionStart.json')),
		});
		expect({status: hook.status, stdout: hook.stdout, stderr: hook.stderr}).toEqual({status: 0, stdout: '', stderr: ''});
		const snapshot = spawnSync(bin, ['snapshot', '--json'], {encoding: 'utf8', env});
		expect(snapshot.stderr).toBe('');
		const tasks = (JSON.parse(snapshot.stdout) as {tasks: {id: string; status: string}[]}).tasks;
		expect(tasks).toEqual([expect.objectContaining({id: expect.stringMatching(/^c-[0-9a-f]{12}$/), status: 'running'})]);
		const status = spawnSync(bin, ['status'], {encoding: 'utf8', env});
		expect({status: status.status, stderr: status.stderr}).toEqual({status: 0, stderr: ''});
		expect(status.stdout).toMatch(/^needs you 0 · decisions 0 · running 1 · stalled 0 · lost 0 · today /);
	});

	it(
		'runs from the tarball with npx',
		() => {
			const result = spawnSync('npx', ['--yes', '--prefer-offline', '--package', tarball, '--', 'controlroom', '--version'], {
				cwd: work,
				env: installEnv(),
				encoding: 'utf8',
			});
			expect(result.stdout.trim().split('\n').at(-1)).toBe(pkg.version);
			expect(result.status).toBe(0);
		},
		INSTALL_MS,
	);

	it('runs the demo from the PATH in tmux for more than 5 s, names its ledger, and quits with q', async () => {
		expect(Tmux.isAvailable(), 'tmux is needed (.ci/run installs it)').toBe(true);
		tmux.start('demo', 160, 40, {PATH: `${join(prefix, 'bin')}:${process.env['PATH'] ?? ''}`, HOME: scratchDir('cr-home-')});
		const started = Date.now();
		tmux.type('demo', 'controlroom demo');
		tmux.send('demo', 'Enter');
		// The header names the scratch ledger; the board fills as the simulated agents report in. The
		// bound is for a cold start's first frame on a loaded machine (seconds), not for the demo.
		await tmux.waitFor(
			'demo',
			pane => /^controlroom \S*controlroom-demo-\w+\/ledger\.db {2}running/m.test(pane) && pane.includes('bump dependencies'),
			30_000,
		);
		// The crashing agent is killed eight seconds after the demo starts (src/cli/demo/agents.ts) and
		// the reconciler finds it lost: the board shows that, still running itself.
		await tmux.waitFor('demo', current => /migrate the orders table \(will crash\) +wrapper +lost /.test(current), 30_000);
		expect(Date.now() - started).toBeGreaterThan(5000);
		expect(tmux.foreground('demo')).toBe('node');
		tmux.send('demo', 'q');
		const {pane: after} = await tmux.waitFor('demo', current => current.includes('demo ledger kept at'), 20_000);
		// On the PATH, the hint names the command as the user types it.
		expect(after).toMatch(/look again with: controlroom --ledger \S+ledger\.db/);
	}, 90_000);
});
