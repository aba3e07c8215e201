import {execFileSync} from 'node:child_process';
import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {afterAll, describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {writeContract} from '../../src/handoff/intake.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {chatTask} from '../helpers/chat-contracts.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {makeContractRepo, type ContractRepo} from '../helpers/contract-repo.ts';
import {freshDatabase, query, stopOwnPgServer} from '../helpers/pg.ts';
import {onExit, waitFor} from '../helpers/wait-for.ts';
import {startAs, testHost, type TestHost} from '../fleet/helpers.ts';
import type {Started} from '../producers/helpers.ts';

// Two pickup loops and one contract: exactly one takes it, on one machine (two processes, one
// ledger) and across a fleet (two hosts, each its own ledger, one PostgreSQL).

const HOLDER = fileURLToPath(new URL('../fixtures/agents/holds-until-released.mjs', import.meta.url));

/** A contract written on `ledgerFile`, ready at once (the token's policy a person set). */
function writeReady(ledgerFile: string, repo: ContractRepo): string {
	const ledger = openLedger(ledgerFile);
	try {
		return writeContract(ledger, {
			kind: 'task',
			text: chatTask(repo.head),
			repository: null,
			writer: {client: 'ci', owner: 'ana', via: 'serve', grant: 'g-test', host: null},
			repositories: new Map([['shop', repo.dir]]),
			readyAtOnce: {by: 'ana'},
			origin: 'serve',
		}).id;
	} finally {
		ledger.close();
	}
}

function takes(ledgerFile: string, id: string): number {
	const ledger = openLedger(ledgerFile);
	try {
		return ledger.reader.eventsOfType([EventType.claimTaken]).filter(event => event.data.contractKey === id).length;
	} finally {
		ledger.close();
	}
}

/** Two pickups at once; the one that did not take exits after its pass, the taker holds until released. */
async function race(pickups: readonly Started[], release: string): Promise<{taker: Started; other: Started}> {
	const first = await waitFor(() => pickups.find(pickup => pickup.child.exitCode !== null), {
		what: 'the pickup that did not take it to end its pass',
		on: pickups.map(pickup => onExit(pickup.child)),
		timeoutMs: 30_000,
	});
	const taker = pickups.find(pickup => pickup !== first) as Started;
	writeFileSync(release, '');
	const [done] = await Promise.all([taker.done, first.done]);
	expect(done.code, taker.stderr()).toBe(0);
	return {taker, other: first};
}

function pickupArgs(name: string, repo: ContractRepo, release: string, extra: readonly string[] = []): string[] {
	return [
		'pickup',
		'--agent',
		'codex',
		'--once',
		'--as',
		name,
		'--repo',
		`shop=${repo.dir}`,
		...extra,
		'--',
		process.execPath,
		HOLDER,
		release,
		'{{contract}}',
	];
}

describe('two pickups, one contract', () => {
	afterAll(stopOwnPgServer);

	it('on one ledger: exactly one takes it', async () => {
		const host = testHost('solo');
		const repo = makeContractRepo();
		runCli(['snapshot'], {env: host.env});
		const id = writeReady(host.ledgerFile, repo);
		const release = join(scratchDir('cr-release-'), 'go');
		const pickups = ['one', 'two'].map(name => startAs(host, pickupArgs(name, repo, release)));
		const {taker, other} = await race(pickups, release);
		expect(taker.stdout()).toContain(`took ${id}`);
		expect(other.stdout()).not.toContain('took');
		expect(takes(host.ledgerFile, id)).toBe(1);
	});

	it('on two hosts of a fleet: exactly one takes it, and the claim is held in PostgreSQL by one host', async () => {
		const url = await freshDatabase();
		const repo = makeContractRepo();
		const hosts: TestHost[] = [testHost('alpha'), testHost('beta')];
		for (const host of hosts) runCli(['snapshot'], {env: host.env});
		const id = writeReady(hosts[0]?.ledgerFile ?? '', repo);
		// The writing host's sync publishes it; beta has never seen it.
		const sync = runCli(['sync', '--to', url, '--once'], {env: hosts[0]?.env});
		expect(sync.status, sync.stderr).toBe(0);
		const release = join(scratchDir('cr-release-'), 'go');
		const pickups = hosts.map(host => startAs(host, pickupArgs(`pickup-${host.name}`, repo, release, ['--fleet', url])));
		const {taker} = await race(pickups, release);
		expect(taker.stdout()).toContain(`took ${id}`);
		expect(hosts.map(host => takes(host.ledgerFile, id)).reduce((a, b) => a + b, 0)).toBe(1);
		const claims = await query<{holder: string; outcome: string}>(
			url,
			'SELECT holder, outcome FROM controlroom.contract_claims WHERE contract_id = $1',
			[id],
		);
		expect(claims).toHaveLength(1);
		// Its run ended without a hand-in: passed back, free for any host again.
		expect(claims[0]?.outcome).toBe('passed back');
	});

	it('passes back a contract whose repository or base revision is not on this machine, with the reason, and leaves it then', () => {
		const host = testHost('lacking');
		const repo = makeContractRepo();
		const other = makeContractRepo();
		// Another history: its commit is not the contract's base revision (two fixtures made in one second are the same commit).
		other.write('other.txt', 'another history\n');
		execFileSync(
			'git',
			['-C', other.dir, '-c', 'user.email=o@example.com', '-c', 'user.name=o', 'commit', '-qam', 'other', '--amend'],
			{stdio: 'ignore'},
		);
		execFileSync('git', ['-C', other.dir, 'reflog', 'expire', '--expire=now', '--all'], {stdio: 'ignore'});
		execFileSync('git', ['-C', other.dir, 'gc', '--prune=now', '-q'], {stdio: 'ignore'});
		runCli(['snapshot'], {env: host.env});
		const id = writeReady(host.ledgerFile, repo);
		const contract = (): {state: string; passedBack: {by: string; reason: string} | null} => {
			const snapshot = JSON.parse(runCli(['snapshot', '--json'], {env: host.env}).stdout) as {
				contracts: {id: string; state: string; passedBack: {by: string; reason: string} | null}[];
			};
			return snapshot.contracts.find(item => item.id === id) ?? {state: 'missing', passedBack: null};
		};
		const noCheckout = runCli(['pickup', '--agent', 'claude', '--once', '--as', 'p1'], {env: host.env});
		expect(noCheckout.status, noCheckout.stderr).toBe(0);
		expect(contract()).toMatchObject({state: 'passed back', passedBack: {by: 'p1'}});
		expect(contract().passedBack?.reason).toMatch(/^not on this machine \(.+\): no checkout of shop in repositories.json$/);
		// Mapped to a checkout that lacks the base revision: passed back naming it.
		const wrongCheckout = runCli(['pickup', '--agent', 'claude', '--once', '--as', 'p2', '--repo', `shop=${other.dir}`], {
			env: host.env,
		});
		expect(wrongCheckout.status, wrongCheckout.stderr).toBe(0);
		expect(contract().passedBack).toMatchObject({by: 'p2'});
		expect(contract().passedBack?.reason).toContain('context.base_revision: no such commit in the repository');
		// The same pickup does not take again what it passed back itself.
		const again = runCli(['pickup', '--agent', 'claude', '--once', '--as', 'p2', '--repo', `shop=${other.dir}`], {env: host.env});
		expect(again.stdout).not.toContain('took');
		expect(takes(host.ledgerFile, id)).toBe(2);
	});
});
