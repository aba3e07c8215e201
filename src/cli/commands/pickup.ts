import {spawn} from 'node:child_process';
import {hostname} from 'node:os';
import {join} from 'node:path';
import {tripwireOf} from '../../core/contract/commands.ts';
import {isTakeable, type IntakeRecord} from '../../core/contract/intake.ts';
import {terminalSafe} from '../../core/terminal-text.ts';
import {passBack, HandoffError, type Actor} from '../../handoff/claims.ts';
import {cannotWorkHere, checkStoredContract, takeStoredContract, type StoredTake} from '../../handoff/intake-claims.ts';
import {contractTextOf} from '../../ledger/contracts.ts';
import {listIntake} from '../../handoff/intake.ts';
import {mappedRepositoryFacts, repositoryKey, type RepositoryMap} from '../../handoff/repository-map.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {makePrivateDir} from '../../ledger/private-files.ts';
import {parseCommandArgs, positiveInt, positiveSeconds} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {packageRoot} from '../package-root.ts';
import {loadRepositories} from '../repository-file.ts';
import {stopOnSignals} from '../signals.ts';
import {workerIdentity} from '../worker-identity.ts';
import {commandSettings} from '../config-file.ts';
import {fleetContracts, type FleetContracts} from '../pickup-fleet.ts';
import {describeFleetError} from '../../ledger/fleet/connection.ts';

export const help: CommandHelp = {
	synopsis: [
		'pickup --agent claude|codex [--as NAME] [--parallel N] [--once]',
		'pickup ... [--repo NAME=PATH]... [--fleet URL] [--interval S] [-- CMD ARGS...]',
	],
	description: `A loop that takes ready stored contracts (written through serve or an agent's mcp, made ready by a
person) and runs the agent on each under the wrapper: controlroom run --contract ID --claim TASK, so
admission slots, budgets, holds, reviews and hand-in apply as for any run. One at a time per
repository unless --parallel N. Each contract's repository is mapped to this host's checkout by
repositories.json (or --repo); a contract whose repository or base revision is not here is passed
back with the reason, and this pickup does not take it again until a person makes it ready again.
A tripwire in the contract's guardrails runs only when it is a command the repository defines
(npm run X, npm test, yarn X, pnpm X, make T), under the wrapper, before the agent starts: a
tripped one passes the contract back. A run that ends without a hand-in passes its claim back.
With --fleet URL, ready contracts of every host of the fleet are taken, each by one host only.
CMD ARGS: the agent's command line (default: claude -p, or codex exec); the contract goes where
{{contract}} is, else after claude -p's or codex exec's prompt.`,
	options: [
		['--agent claude|codex', 'the agent to run (required)'],
		['--as NAME', 'who holds the claims (default $CONTROLROOM_WORKER, else pickup@HOST)'],
		['--parallel N', 'runs at once per repository (default 1); the admission slots still bound writers'],
		['--once', 'take what is ready now, wait for those runs, and exit'],
		['--interval SECONDS', 'between looks for ready contracts (default 5)'],
		['--repo NAME=PATH', "a repository's checkout, over repositories.json (repeatable)"],
		['--fleet URL', "the fleet's PostgreSQL: contracts of every host, claims exclusive across hosts (docs/fleet.md)"],
	],
	exits: [
		['0', '--once: every run it started ended'],
		['64', 'bad command line'],
		['78', 'repositories.json or the config file is wrong'],
		['128+N', 'stopped by signal N (Ctrl-C 130, SIGTERM 143); runs it started go on, recorded by their wrappers'],
	],
	examples: [
		['controlroom pickup --agent claude', 'Claude Code on each ready contract, one per repository at a time'],
		['controlroom pickup --agent codex --parallel 2 -- codex exec --json', 'Codex, two at a time per repository'],
	],
};

type AgentName = 'claude' | 'codex';

/** What one pickup runs with. */
type Pickup = {
	readonly ledger: Ledger;
	readonly actor: Actor;
	readonly holder: string;
	readonly agent: AgentName;
	readonly command: readonly string[];
	readonly repositories: RepositoryMap;
	readonly repoFlags: readonly string[];
	readonly parallel: number;
	readonly host: string;
	readonly logDir: string;
	readonly say: (line: string) => void;
	readonly fleet: FleetContracts | null;
	/** Passes back a contract may have before it goes to Needs you (docs/config.md, `passBackLimit`). */
	readonly passBackLimit: number;
	/** How long a claim is held before it goes to Needs you (docs/config.md, `claimTimeLimit`). */
	readonly timeLimitSeconds: number;
};

const BIN = (): string => join(packageRoot(), 'bin', 'controlroom');

/** Runs `controlroom ARGS` as a child with the holder's identity; resolves with its exit code. */
function runChild(args: readonly string[], holder: string, log: string): Promise<number | null> {
	return new Promise(resolve => {
		const child = spawn(process.execPath, [BIN(), ...args], {
			env: {...process.env, CONTROLROOM_WORKER: holder},
			stdio: ['ignore', 'ignore', 'pipe'],
		});
		let stderr = '';
		child.stderr?.on('data', chunk => (stderr += String(chunk)).length > 8192 && (stderr = stderr.slice(-8192)));
		child.on('error', () => resolve(127));
		child.on('exit', code => {
			if (code !== 0 && stderr.trim() !== '')
				process.stderr.write(`controlroom pickup: ${log}: ${terminalSafe(stderr.trim().split('\n').at(-1) ?? '')}\n`);
			resolve(code);
		});
	});
}

/** Whether this pickup passed the contract back itself since a person last made it ready: it leaves it then. */
function passedBackByMe(record: IntakeRecord, holder: string): boolean {
	const back = record.passedBack;
	if (back === null) return false;
	return back.by === holder && back.at >= (record.readied?.at ?? 0);
}

/** Passes a claim back with a reason; a claim already ended (the agent handed it in) is left alone. */
function giveBack(pickup: Pickup, claim: string, reason: string): void {
	try {
		passBack(pickup.actor, claim, reason, pickup.passBackLimit);
		pickup.say(`${claim} passed back: ${reason}`);
	} catch (error) {
		if (!(error instanceof HandoffError)) throw error;
	}
}

/** Runs the contract's repository-defined tripwires under the wrapper; the first that trips, or null. */
async function trippedWire(pickup: Pickup, take: StoredTake, checkout: string, record: IntakeRecord): Promise<string | null> {
	const text = contractTextOf(pickup.ledger.reader, record.id);
	const contract = text === null ? null : checkStoredContract(record, text.text, pickup.repositories).contract;
	const facts = mappedRepositoryFacts(pickup.repositories, record.repository);
	for (const line of contract?.guardrails?.tripwires ?? []) {
		// A tripwire that is no command the repository defines stays prose: the agent reads it in its contract.
		const tripwire = tripwireOf(line);
		if (!tripwire.isRunnable || !facts.defines(record.repository ?? '', tripwire.requirement)) continue;
		const {argv} = tripwire;
		const code = await runChild(
			[
				'run',
				'--ledger',
				pickup.ledger.path,
				'--cwd',
				checkout,
				'--title',
				`tripwire ${argv.join(' ')} (${take.contractId})`,
				'--agent',
				'generic',
				'--log',
				join(pickup.logDir, `${take.taskId}.tripwire.log`),
				'--',
				...argv,
			],
			pickup.holder,
			`tripwire ${argv.join(' ')}`,
		);
		if (code !== 0) return `tripwire \`${argv.join(' ')}\` tripped (exit ${code ?? 'unknown'}) before the work started`;
	}
	return null;
}

/** Takes one contract and runs it to its end; resolves when its run (if any) ended. */
async function work(pickup: Pickup, record: IntakeRecord): Promise<void> {
	let take: StoredTake;
	if (pickup.fleet !== null && !(await pickup.fleet.claim(record.id, pickup.holder))) return;
	try {
		take = takeStoredContract(
			pickup.actor,
			record.id,
			pickup.holder,
			pickup.repositories,
			undefined,
			pickup.passBackLimit,
			pickup.timeLimitSeconds,
		);
	} catch (error) {
		// Taken here meanwhile (another pickup on this ledger): the fleet's claim is given up again.
		if (pickup.fleet !== null) await pickup.fleet.release(record.id, pickup.holder, 'passed back');
		if (error instanceof HandoffError) return;
		throw error;
	}
	const settle = async (outcome: string): Promise<void> => {
		if (pickup.fleet !== null) await pickup.fleet.release(record.id, pickup.holder, outcome);
	};
	pickup.say(`took ${record.id} "${record.title ?? ''}" as ${take.taskId}`);
	const cannot = cannotWorkHere(take, record.repository, pickup.host);
	if (cannot !== null || take.checkout === null) {
		giveBack(pickup, take.taskId, cannot ?? 'no checkout here');
		return settle('passed back');
	}
	const tripped = await trippedWire(pickup, take, take.checkout, record);
	if (tripped !== null) {
		giveBack(pickup, take.taskId, tripped);
		return settle('passed back');
	}
	const [program = pickup.agent, ...args] = pickup.command;
	const code = await runChild(
		[
			'run',
			'--ledger',
			pickup.ledger.path,
			'--contract',
			record.id,
			'--claim',
			take.taskId,
			'--cwd',
			take.checkout,
			'--agent',
			pickup.agent,
			'--log',
			join(pickup.logDir, `${take.taskId}.log`),
			...pickup.repoFlags.flatMap(flag => ['--repo', flag]),
			'--',
			program,
			...args,
		],
		pickup.holder,
		`run of ${record.id}`,
	);
	const claim = pickup.ledger.reader.task(take.taskId);
	if (claim !== undefined && claim.status === 'running')
		giveBack(pickup, take.taskId, `the run ended (exit ${code ?? 'unknown'}) without a hand-in`);
	const after = listIntake(pickup.ledger).find(item => item.id === record.id);
	pickup.say(`${take.taskId}: the run ended (exit ${code ?? 'unknown'}); the contract is ${after?.state ?? 'unknown'}`);
	await settle(after?.state ?? 'unknown');
}

/** The default agent command line for each agent. */
function defaultCommand(agent: AgentName): string[] {
	return agent === 'claude' ? ['claude', '-p'] : ['codex', 'exec'];
}

/** `controlroom pickup`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('pickup', argv, {
		agent: {type: 'string'},
		as: {type: 'string'},
		parallel: {type: 'string'},
		once: {type: 'boolean'},
		interval: {type: 'string'},
		repo: {type: 'string', multiple: true},
		fleet: {type: 'string'},
	});
	const agent = values.agent === 'claude' || values.agent === 'codex' ? values.agent : null;
	if (agent === null)
		throw new CliError(
			`pickup: --agent: expected claude or codex${values.agent ? `, got '${terminalSafe(values.agent)}'` : ''}`,
			USAGE_EXIT,
		);
	const parallel = positiveInt('parallel', values.parallel) ?? 1;
	const intervalMs = (positiveSeconds('interval', values.interval, 0.05) ?? 5) * 1000;
	const repoFlags = values.repo ?? [];
	const repositories = loadRepositories(repoFlags);
	const host = hostname();
	const holder = workerIdentity('pickup', values.as) ?? `pickup@${host}`;
	const {passBackLimit, claimTimeLimit} = commandSettings({passBackLimit: undefined, claimTimeLimit: undefined});
	const ledger = openCommandLedger(values.ledger, {mode: 'create', onMove: 'stay'});
	const stopping = stopOnSignals();
	const say = (line: string): void => out(`pickup: ${terminalSafe(line)}`);
	const logDir = join(ledger.path, '..', 'pickup');
	makePrivateDir(logDir);
	const fleet = values.fleet === undefined ? null : await fleetContracts(values.fleet, ledger);
	const pickup: Pickup = {
		ledger,
		actor: {ledger, source: 'cli', identity: holder},
		holder,
		agent,
		command: positionals.length > 0 ? positionals : defaultCommand(agent),
		repositories,
		repoFlags,
		parallel,
		host,
		logDir,
		say,
		fleet,
		passBackLimit,
		timeLimitSeconds: claimTimeLimit / 1000,
	};
	const running = new Map<string, Promise<void>>();
	const perRepository = new Map<string, number>();
	try {
		say(`${holder} takes ready contracts for ${agent}${fleet ? ' from the fleet' : ''}`);
		for (;;) {
			if (fleet !== null)
				await fleet
					.sync()
					.catch((error: unknown) => say(`the fleet: ${describeFleetError(error, values.fleet ?? '')}; trying again`));
			for (const record of listIntake(ledger).reverse()) {
				if (stopping.signal.aborted) break;
				if (!isTakeable(record) || running.has(record.id) || passedBackByMe(record, holder)) continue;
				const key = repositoryKey(record.repository ?? '');
				if ((perRepository.get(key) ?? 0) >= parallel) continue;
				perRepository.set(key, (perRepository.get(key) ?? 0) + 1);
				const done = work(pickup, record)
					.catch(error => say(`${record.id}: ${(error as Error).message}`))
					.finally(() => {
						running.delete(record.id);
						perRepository.set(key, (perRepository.get(key) ?? 1) - 1);
					});
				running.set(record.id, done);
			}
			if (values.once) {
				await Promise.all(running.values());
				return 0;
			}
			await new Promise<void>(resolve => {
				const timer = setTimeout(resolve, intervalMs);
				stopping.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), {once: true});
			});
			if (stopping.signal.aborted) return stopping.exitCode() ?? 0;
		}
	} finally {
		stopping.dispose();
		await fleet?.close();
		ledger.close();
	}
}
