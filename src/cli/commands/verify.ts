import {existsSync, readFileSync} from 'node:fs';
import type {ChainBreak} from '../../core/chain-break.ts';
import {terminalSafe} from '../../core/terminal-text.ts';
import {checkAnchors, headAnchor, parseAnchors, type Anchor} from '../../ledger/anchors.ts';
import type {VerifyResult} from '../../ledger/chain-verify.ts';
import {verifyChainInParts} from '../../ledger/chain-verify-parts.ts';
import {packageRoot} from '../package-root.ts';
import {join} from 'node:path';
import {compareWithFleet} from '../../ledger/fleet/chain-compare.ts';
import {connectFleet, describeFleetError, isFleetUrl, isUnreachable, redactUrl} from '../../ledger/fleet/connection.ts';
import {checkFleetSchema} from '../../ledger/fleet/migrations.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {parseCommandArgs, positiveInt} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';

export const help: CommandHelp = {
	synopsis: [
		'verify [--from SEQ] [--to SEQ] [--json]',
		'verify --anchor [--json]',
		'verify --against ANCHOR|FILE|postgres://... [--json]',
	],
	description: `Checks the ledger's hash chain (docs/ledger.md, "The hash chain"): each event must carry the
SHA-256 of the event before it and its own content, and seqs must follow one another. Stops at the
first event that does not hold and names it and how the ledger was changed: edited, deleted (the
missing seqs), inserted, reordered (moved), truncated (the tail cut), or rewritten (the chain holds
but does not reach an anchor kept elsewhere). --anchor prints the chain's head as an anchor to keep
where the ledger's user cannot change it; --against checks the ledger still reaches anchors: one
printed by --anchor (or SEQ:HASH), a file of them (the ledger's own anchors file is
LEDGER.anchors), or a fleet ledger, whose copy of every shipped event names the first one written
again since.`,
	options: [
		['--from SEQ', "start at this seq (its predecessor's link is taken as given; default: the chain's start)"],
		['--to SEQ', 'stop after this seq (default: the last event; only a check to the end finds a cut tail)'],
		['--anchor', 'print the head: {"host","seq","hash","at"} on one line'],
		['--against ANCHOR', 'an anchor line, SEQ:HASH, a file of anchor lines, or postgres://... (the fleet this ledger syncs to)'],
		['--json', '{version: 1, intact, checked, fromSeq, head, found: {kind, seq, missing, why}}'],
	],
	exits: [
		['0', 'the chain holds (and reaches every anchor asked for); or --anchor printed the head'],
		['1', 'tampered: the line names the first event that does not hold and how'],
		['64', 'bad command line, no ledger at --ledger PATH, an anchor that does not parse'],
		['66', 'the anchors file named by --against does not exist'],
		['69', 'the fleet named by --against is out of reach, or does not know this ledger'],
	],
	examples: [
		['controlroom verify', 'check the whole chain'],
		['controlroom verify --anchor >> ~/anchors-kept-elsewhere', 'keep the head somewhere the agents cannot write'],
		['controlroom verify --against ~/anchors-kept-elsewhere', 'does the ledger still reach every kept head?'],
		['controlroom verify --against postgres://fleet.example/db', "compare every shipped event with the fleet's copy"],
	],
};

type Outcome = {readonly result: VerifyResult; readonly found: ChainBreak | null; readonly note: string | null};

/** The anchors --against names: a file of them, or the text itself. */
function anchorsFrom(value: string): Anchor[] {
	const looksLikeAnchor = /^\s*(\{|\d+:[0-9a-f]{64}\s*$)/.test(value);
	let text = value;
	if (!looksLikeAnchor) {
		if (!existsSync(value)) throw new CliError(`--against: no anchors file at ${value}`, 66);
		text = readFileSync(value, 'utf8');
	}
	try {
		const anchors = parseAnchors(text);
		if (anchors.length === 0) throw new Error('it holds no anchor');
		return anchors;
	} catch (error) {
		throw new CliError(`--against: ${(error as Error).message}`, USAGE_EXIT);
	}
}

async function againstFleet(ledger: Ledger, url: string): Promise<{found: ChainBreak | null; note: string}> {
	let client;
	try {
		client = await connectFleet(url, 'verify');
	} catch (error) {
		throw new CliError(describeFleetError(error, url), isUnreachable(error) ? 69 : 1);
	}
	try {
		await checkFleetSchema(client, url);
		const comparison = await compareWithFleet(ledger.reader, client);
		if (!comparison.isKnown)
			throw new CliError(
				`the fleet at ${redactUrl(url)} holds nothing of this ledger (host id ${ledger.reader.hostId()}): sync it first`,
				69,
			);
		return {
			found: comparison.found,
			note: `${comparison.compared} event${comparison.compared === 1 ? '' : 's'} and ${comparison.anchors} anchor${comparison.anchors === 1 ? '' : 's'} compared with the fleet at ${redactUrl(url)}`,
		};
	} catch (error) {
		if (error instanceof CliError) throw error;
		throw new CliError(describeFleetError(error, url));
	} finally {
		await client.end().catch(() => undefined);
	}
}

function describeFound(found: ChainBreak): string {
	return `tampered: seq ${found.seq} ${found.kind}: ${found.why}`;
}

/** `controlroom verify`: does the ledger's chain hold, and does it reach the anchors kept elsewhere? */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('verify', argv, {
		from: {type: 'string'},
		to: {type: 'string'},
		anchor: {type: 'boolean'},
		against: {type: 'string'},
		json: {type: 'boolean'},
	});
	if (positionals.length > 0) throw new CliError(`verify: unexpected argument '${positionals[0]}'`, USAGE_EXIT);
	if (values.anchor && (values.against !== undefined || values.from !== undefined || values.to !== undefined))
		throw new CliError('verify: --anchor takes no other check', USAGE_EXIT);
	const fromSeq = positiveInt('from', values.from);
	const toSeq = positiveInt('to', values.to);
	if (fromSeq !== undefined && toSeq !== undefined && toSeq < fromSeq)
		throw new CliError(`verify: --to ${toSeq} comes before --from ${fromSeq}`, USAGE_EXIT);
	const anchors = values.against === undefined || isFleetUrl(values.against) ? null : anchorsFrom(values.against);
	const ledger = openCommandLedger(values.ledger, {mode: 'read'});
	try {
		if (values.anchor) {
			const head = headAnchor(ledger.reader, Date.now());
			if (head === null) throw new CliError(`the ledger ${ledger.path} holds no event yet: nothing to anchor`);
			out(values.json ? JSON.stringify({version: 1, ...head}) : JSON.stringify(head));
			return 0;
		}
		const outcome = await check(ledger, {fromSeq, toSeq}, anchors, values.against);
		const {result, found, note} = outcome;
		if (values.json) {
			out(
				JSON.stringify({
					version: 1,
					intact: found === null,
					checked: result.checked,
					fromSeq: result.fromSeq,
					head: result.isIntact ? result.head : null,
					chainedSince: chainedSince(ledger),
					found,
				}),
			);
			return found === null ? 0 : 1;
		}
		if (found !== null) {
			out(terminalSafe(describeFound(found)));
			return 1;
		}
		const head = result.isIntact ? result.head : null;
		const since = chainedSince(ledger);
		out(
			[
				`intact: ${result.checked} event${result.checked === 1 ? '' : 's'} checked${head ? `, seq ${result.fromSeq}-${head.seq}, head ${head.hash}` : ''}`,
				...(note === null ? [] : [note]),
				...(since === null
					? []
					: [`chained since ${since.at} (events up to seq ${since.beforeSeq} were chained then, as they were)`]),
			].join('\n'),
		);
		return 0;
	} finally {
		ledger.close();
	}
}

function chainedSince(ledger: Ledger): {at: string; beforeSeq: number} | null {
	const facts = ledger.reader.chainFacts();
	if (facts.since === null) return null;
	return {at: new Date(facts.since).toISOString(), beforeSeq: facts.chainedUpTo};
}

async function check(
	ledger: Ledger,
	range: {fromSeq: number | undefined; toSeq: number | undefined},
	anchors: readonly Anchor[] | null,
	against: string | undefined,
): Promise<Outcome> {
	const workerFile = join(packageRoot(), 'dist', 'ledger', 'integrity-worker.js');
	const result = await verifyChainInParts(ledger.reader, ledger.file, workerFile, {
		...(range.fromSeq === undefined ? {} : {fromSeq: range.fromSeq}),
		...(range.toSeq === undefined ? {} : {toSeq: range.toSeq}),
	});
	if (!result.isIntact) return {result, found: result.found, note: null};
	if (anchors !== null) {
		const found = checkAnchors(ledger.reader, anchors);
		return {result, found, note: `${anchors.length} anchor${anchors.length === 1 ? '' : 's'} reached`};
	}
	if (against !== undefined) {
		const fleet = await againstFleet(ledger, against);
		return {result, found: fleet.found, note: fleet.note};
	}
	return {result, found: null, note: null};
}
