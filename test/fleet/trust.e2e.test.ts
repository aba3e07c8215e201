import {createHash} from 'node:crypto';
import {chmodSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {BIN, runCli, scratchDir} from '../helpers/cli.ts';
import {connection, freshDatabase, query, startPgServer, stopOwnPgServer, type PgServer} from '../helpers/pg.ts';
import {Tmux} from '../helpers/tmux.ts';
import {waitFor} from '../helpers/wait-for.ts';
import {fleetEvents, hostIdOf, localEvents, testHost, type TestHost} from './helpers.ts';

// The fleet trusts no row (docs/fleet.md): no password on a command line, rows of a host only with
// its key, another host's malformed row skipped with a notice. Real PostgreSQL, real syncs.

const servers: PgServer[] = [];
const tmux = new Tmux();
afterAll(async () => {
	tmux.kill();
	for (const server of servers) server.stop();
	await stopOwnPgServer();
});

/** A few wrapped runs on a host, so it has events and task rows to ship. */
function work(host: TestHost, runs: number): void {
	for (let index = 0; index < runs; index += 1) {
		const run = runCli(['run', '--ledger', host.ledgerFile, '--title', `work ${index}`, '--', process.execPath, '-e', '0'], {
			env: host.env,
		});
		expect(run.status, run.stderr).toBe(0);
	}
}

function syncOnce(url: string, host: TestHost, env: NodeJS.ProcessEnv = host.env) {
	return runCli(['sync', '--to', url, '--once', '--ledger', host.ledgerFile], {env});
}

describe('no password on a command line', () => {
	it.each([
		['sync --to', (url: string) => ['sync', '--to', url, '--once'], '--to'],
		['reconcile --sync-to', (url: string) => ['reconcile', '--once', '--sync-to', url], '--sync-to'],
		['snapshot --ledger', (url: string) => ['snapshot', '--ledger', url], '--ledger'],
		['the board', (url: string) => ['--ledger', url], '--ledger'],
	])(
		'%s with a password in the URL: one line naming where it goes instead, exit 64, the password never said',
		(_what, args, flag) => {
			const home = scratchDir('cr-fleet-pw-');
			for (const url of [
				'postgres://fleet:hunter2-secret@127.0.0.1:1/db',
				'postgresql://fleet@127.0.0.1:1/db?password=hunter2-secret',
			]) {
				const result = runCli(args(url), {env: {...process.env, CONTROLROOM_HOME: home}});
				expect(result.status).toBe(64);
				expect(result.stderr).toBe(
					`controlroom: ${flag}: the URL holds a password, which every local user can read in ps; leave it out and give it in PGPASSWORD, or in a password file (PGPASSFILE, else ~/.pgpass; mode 0600; lines host:port:database:user:password)\n`,
				);
				expect(result.stdout + result.stderr).not.toContain('hunter2');
			}
		},
	);

	it('takes the password from PGPASSWORD or a password file of mode 0600, and says where one goes when none is given', async () => {
		// Given a server that asks a password of the role the fleet uses
		const server = await startPgServer();
		servers.push(server);
		const base = new URL(server.url);
		await query(server.url, `CREATE ROLE fleetpw LOGIN SUPERUSER PASSWORD 'pw-of-the-fleet'`);
		const hba = join(server.dir, 'pg_hba.conf');
		writeFileSync(hba, `host all fleetpw 127.0.0.1/32 scram-sha-256\n${readFileSync(hba, 'utf8')}`);
		await query(server.url, 'SELECT pg_reload_conf()');
		const url = `postgres://fleetpw@127.0.0.1:${base.port}/postgres`;
		const host = testHost('pw');
		work(host, 1);
		const file = join(scratchDir('cr-pgpass-'), 'pgpass');
		const without = {...host.env, PGPASSWORD: '', PGPASSFILE: join(scratchDir('cr-none-'), 'no-such-file')};
		// When none is given: one line saying where it goes
		const none = syncOnce(url, host, without);
		expect(none.status).toBe(1);
		expect(none.stderr).toBe(
			`controlroom: sync: the server asks a password for user fleetpw at 127.0.0.1:${base.port}/postgres, and none is given: set PGPASSWORD, or add a line host:port:database:user:password to ${without.PGPASSFILE} (mode 0600)\n`,
		);
		// A password file others can read is not read
		writeFileSync(file, `# the fleet\n127.0.0.1:${base.port}:*:fleetpw:pw-of-the-fleet\n`, {mode: 0o644});
		const loose = syncOnce(url, host, {...without, PGPASSFILE: file});
		expect(loose.status).toBe(1);
		expect(loose.stderr).toContain(`the password file ${file} can be read by others (mode 644): not read; chmod 600 it`);
		expect(loose.stderr).not.toContain('pw-of-the-fleet');
		// Then with the file at 0600, and with PGPASSWORD: synced
		chmodSync(file, 0o600);
		const fromFile = syncOnce(url, host, {...without, PGPASSFILE: file});
		expect(fromFile.status, fromFile.stderr).toBe(0);
		work(host, 1);
		const fromVariable = syncOnce(url, host, {...without, PGPASSWORD: 'pw-of-the-fleet'});
		expect(fromVariable.status, fromVariable.stderr).toBe(0);
		expect(await fleetEvents(server.url, hostIdOf(host))).toEqual(localEvents(host));
	}, 120_000);
});

describe("a host's rows only under its key", () => {
	it('refuses a row another writer puts at a host’s next seq; the host’s sync ships everything after', async () => {
		// Given a host that synced once
		const url = await freshDatabase();
		const host = testHost('victim');
		work(host, 2);
		expect(syncOnce(url, host).status).toBe(0);
		const hostId = hostIdOf(host);
		const next = localEvents(host).length + 1;
		// When another writer, without the host's key, puts rows at its next seqs
		const forge = (seq: number) =>
			query(
				url,
				`INSERT INTO controlroom.events (host_id, seq, task_id, type, at, source, data) VALUES ($1, $2, 'w-forged', 'task.registered', 0, 'x', '{}')`,
				[hostId, seq],
			);
		await expect(forge(next)).rejects.toThrow(/rows of host .* are written only with that host's key/);
		await expect(query(url, `UPDATE controlroom.hosts SET name = 'renamed' WHERE id = $1`, [hostId])).rejects.toThrow(
			/is changed only with its own key/,
		);
		// Then the host goes on and ships every event, the fleet holding exactly its history
		work(host, 2);
		const sync = syncOnce(url, host);
		expect(sync.status, sync.stderr).toBe(0);
		expect(await fleetEvents(url, hostId)).toEqual(localEvents(host));
	}, 120_000);

	it('is not blocked by rows put at its seqs before keys were kept: it ships around them, tells them, and keeps its events at those seqs in the rejects', async () => {
		const url = await freshDatabase();
		const host = testHost('legacy');
		work(host, 1);
		expect(syncOnce(url, host).status).toBe(0);
		const hostId = hostIdOf(host);
		const shipped = localEvents(host).length;
		// Rows no key wrote (as a fleet's owner, or a build before keys, could have): at the host's
		// next seq, and far ahead; and a task row claiming a huge last seq
		const asOwner = async (sql: string, params: unknown[]) => {
			const open = await connection(url);
			try {
				await open.query('SET session_replication_role = replica');
				await open.query(sql, params);
			} finally {
				await open.end();
			}
		};
		await asOwner(
			`INSERT INTO controlroom.events (host_id, seq, task_id, type, at, source, data) VALUES ($1, $2, 'w-forged', 'task.registered', 0, 'x', '{}'), ($1, 1000000, 'w-forged', 'task.registered', 0, 'x', '{}')`,
			[hostId, shipped + 1],
		);
		work(host, 2);
		const sync = syncOnce(url, host);
		expect(sync.status, sync.stderr).toBe(0);
		expect(sync.stdout).toMatch(/2 rows under this host's id not written with its key \(another writer's\): left as they are/);
		// Every other event shipped; the one at the taken seq is in the rejects
		const fleet = await fleetEvents(url, hostId);
		const local = localEvents(host);
		expect(fleet.filter(event => event.taskId !== 'w-forged')).toEqual(local.filter(event => event.seq !== shipped + 1));
		const rejects = await query<{seq: string; reason: string}>(
			url,
			`SELECT seq, reason FROM controlroom.rejects WHERE host_id = $1 AND kind = 'event'`,
			[hostId],
		);
		expect(rejects.map(row => [Number(row.seq), row.reason])).toEqual([
			[shipped + 1, `seq ${shipped + 1} is held by a row not written with this host's key (another writer's): left as it is`],
		]);
		// And it goes on: the next pass ships the next event, not stopped by the row far ahead
		work(host, 1);
		expect(syncOnce(url, host).status).toBe(0);
		expect((await fleetEvents(url, hostId)).length).toBe(localEvents(host).length - 1 + 2);
	}, 120_000);
});

describe("another host's malformed rows", () => {
	it('are skipped with a notice: the snapshot and the fleet board keep working', async () => {
		const url = await freshDatabase();
		const host = testHost('good');
		work(host, 2);
		expect(syncOnce(url, host).status).toBe(0);
		// Another host, with its own key, ships rows that are not tasks
		const key = 'mallory-key';
		const hash = createHash('sha256').update(key).digest('hex');
		const client = await connection(url);
		try {
			await client.query(`SELECT set_config('controlroom.host_key', $1, false)`, [key]);
			await client.query(`INSERT INTO controlroom.hosts (id, name, key_hash) VALUES ('m-0001', 'mallory', $1)`, [hash]);
			for (const [id, doc] of [
				['t-status', JSON.stringify({id: 't-status', status: 'nonsense'})],
				['t-json', 'not json at all'],
				['t-escape', JSON.stringify({id: 't-escape\u001b[2J', status: 'running'})],
			])
				await client.query(
					`INSERT INTO controlroom.tasks (host_id, id, status, source, created_at, last_event_at, last_seq, doc, key_hash)
					VALUES ('m-0001', $1, 'running', 'x', $2, $2, 1, $3, $4)`,
					[id, Date.now(), doc, hash],
				);
		} finally {
			await client.end();
		}
		const env = {...process.env, CONTROLROOM_HOST: 'desk'};
		const snapshot = runCli(['snapshot', '--json', '--ledger', url], {env});
		expect(snapshot.status, snapshot.stderr).toBe(0);
		const tasks = (JSON.parse(snapshot.stdout) as {tasks: {id: string; host: string}[]}).tasks;
		expect(tasks.map(task => task.host)).toEqual(['good', 'good']);
		expect(snapshot.stderr).toMatch(
			/^controlroom: snapshot: skipped 3 rows of the fleet that are not a task: t-.* on mallory \(.*\); the rest is shown \(docs\/fleet.md\)\n$/,
		);
		expect(snapshot.stderr).not.toContain('\u001b');
		// The fleet board: up, both good tasks shown, the notice on its notice line, keys answered
		tmux.start('fleet', 160, 45, {PATH: process.env['PATH'] ?? '', CONTROLROOM_HOST: 'desk'});
		tmux.type('fleet', `node ${BIN} --ledger '${url}'`);
		tmux.send('fleet', 'Enter');
		const {pane} = await tmux.waitFor('fleet', text => text.includes('work 0') && text.includes('work 1'), 20_000);
		expect(pane).not.toContain('\u001b');
		await tmux.waitFor('fleet', text => /skipped t-\S+ on mallory, a row that is not a task/.test(text), 20_000);
		await waitFor(() => tmux.readsKeys('fleet'), {what: 'the board to read keys'});
		tmux.send('fleet', '?');
		await tmux.waitFor('fleet', text => /KEYS|keys/.test(text));
		tmux.send('fleet', 'q');
		await tmux.waitFor('fleet', () => tmux.foreground('fleet') === 'sh', 20_000);
	}, 120_000);
});
