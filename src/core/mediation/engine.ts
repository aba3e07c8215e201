import type {AgentOracle} from './oracle.ts';
import {enumerateSettlements, MAX_SETTLEMENTS, sizeOf, type Settlement, type SettlementSpace} from './space.ts';

/** One agent's answer to an offer. */
export type Answer =
	| {readonly agent: string; readonly answer: 'accept' | 'reject'}
	| {
			readonly agent: string;
			readonly answer: 'veto';
			readonly options: readonly {readonly item: string; readonly option: string}[];
	  };

/** One turn of the transcript: who offered what, and what each other agent answered. */
export type OfferEntry = {
	/** 1-based, in the order made. */
	readonly n: number;
	/** 1-based round: every agent has one turn per round, in name order. */
	readonly round: number;
	readonly by: string;
	readonly offer: Settlement;
	readonly answers: readonly Answer[];
};

/** A veto as the person sees it: who can never accept which option, and on which offer they said so. */
export type Veto = {readonly agent: string; readonly item: string; readonly option: string; readonly offer: number};

/** The whole mediation, in the order it happened. Holds no weight, utility or floor. */
export type Transcript = {
	readonly outcome: 'agreement' | 'walk-away';
	readonly agreement: Settlement | null;
	/** The agents, in turn order. */
	readonly agents: readonly string[];
	readonly offers: readonly OfferEntry[];
	readonly vetoes: readonly Veto[];
	/** On a walk-away, the items on which the agents' last offers still differ (all items if none was made). */
	readonly unsettled: readonly string[];
	readonly rounds: number;
};

/** The space is larger than the engine will enumerate. */
export class SpaceTooLargeError extends Error {}

type Bidder = {
	readonly oracle: AgentOracle;
	/** Its settlements that reach its floor and that it does not veto, best first by its own answers. */
	readonly ranked: Settlement[];
	/** How far down `ranked` it has conceded. */
	next: number;
	/** Its standing offer: the last it made, or before its first turn the best it could make. */
	standing: Settlement | null;
	hasPassed: boolean;
};

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Ranks an agent's feasible settlements by asking it only which of two is at least as good; ties
 * keep the canonical order (the sort is stable), so the ranking never depends on file order.
 */
function rankFor(oracle: AgentOracle, candidates: readonly Settlement[]): Settlement[] {
	const feasible = candidates.filter(settlement => oracle.reachesFloor(settlement) && oracle.vetoes(settlement).length === 0);
	return feasible.sort((a, b) => {
		const aAtLeast = oracle.isAtLeastAsGood(a, b);
		const bAtLeast = oracle.isAtLeastAsGood(b, a);
		return aAtLeast && !bAtLeast ? -1 : bAtLeast && !aAtLeast ? 1 : 0;
	});
}

function answerOf(bidder: Bidder, offer: Settlement): Answer {
	const {oracle} = bidder;
	const vetoed = oracle.vetoes(offer);
	if (vetoed.length > 0) return {agent: oracle.agent, answer: 'veto', options: vetoed};
	const isGoodEnough = oracle.reachesFloor(offer) && (bidder.standing === null || oracle.isAtLeastAsGood(offer, bidder.standing));
	return {agent: oracle.agent, answer: isGoodEnough ? 'accept' : 'reject'};
}

const containsVetoed = (settlement: Settlement, vetoed: ReadonlySet<string>): boolean =>
	Object.entries(settlement).some(([item, option]) => vetoed.has(`${item}=${option}`));

function unsettledItems(space: SettlementSpace, bidders: readonly Bidder[]): string[] {
	const standing = bidders.map(bidder => bidder.standing);
	if (standing.some(offer => offer === null)) return space.items.map(({item}) => item);
	return space.items.map(({item}) => item).filter(item => new Set(standing.map(offer => offer?.[item])).size > 1);
}

/**
 * Mediates a value disagreement by alternating offers (docs/mediation.md):
 *
 * - Agents take turns in name order. On its turn an agent offers its next settlement, best first
 *   by its own judgement, among those that reach its floor and that nobody has vetoed; it never
 *   goes back to a better one (monotonic concession). An agent with nothing left passes.
 * - Every other agent answers: `veto` when the offer holds an option it can never accept (those
 *   options are then struck from every list, for good), `accept` when the offer reaches its floor
 *   and is at least as good for it as its own standing offer, else `reject`.
 * - All accept: that offer is the agreement. Everyone passes: walk-away.
 *
 * The engine asks the oracles only their three questions; it never sees a weight or a floor.
 * Pure and deterministic: the same positions, in any order, give the same transcript.
 */
export function mediate(oracles: readonly AgentOracle[], space: SettlementSpace): Transcript {
	if (sizeOf(space) > MAX_SETTLEMENTS) {
		throw new SpaceTooLargeError(`${sizeOf(space)} settlements is more than the ${MAX_SETTLEMENTS} the engine enumerates`);
	}
	const candidates = enumerateSettlements(space);
	const bidders: Bidder[] = [...oracles]
		.sort((a, b) => byCodeUnit(a.agent, b.agent))
		.map(oracle => {
			const ranked = rankFor(oracle, candidates);
			return {oracle, ranked, next: 0, standing: ranked[0] ?? null, hasPassed: false};
		});
	const vetoed = new Set<string>();
	const offers: OfferEntry[] = [];
	const vetoes: Veto[] = [];
	let round = 0;
	for (;;) {
		round += 1;
		let isAnyOffer = false;
		for (const bidder of bidders) {
			while (bidder.next < bidder.ranked.length && containsVetoed(bidder.ranked[bidder.next] ?? {}, vetoed)) bidder.next += 1;
			const offer = bidder.ranked[bidder.next];
			if (offer === undefined) {
				bidder.hasPassed = true;
				continue;
			}
			bidder.next += 1;
			bidder.standing = offer;
			isAnyOffer = true;
			const answers = bidders.filter(other => other !== bidder).map(other => answerOf(other, offer));
			const entry: OfferEntry = {n: offers.length + 1, round, by: bidder.oracle.agent, offer, answers};
			offers.push(entry);
			for (const answer of answers) {
				if (answer.answer !== 'veto') continue;
				for (const {item, option} of answer.options) {
					vetoed.add(`${item}=${option}`);
					vetoes.push({agent: answer.agent, item, option, offer: entry.n});
				}
			}
			if (answers.every(answer => answer.answer === 'accept')) {
				return {outcome: 'agreement', agreement: offer, agents: names(bidders), offers, vetoes, unsettled: [], rounds: round};
			}
		}
		if (!isAnyOffer) {
			return {
				outcome: 'walk-away',
				agreement: null,
				agents: names(bidders),
				offers,
				vetoes,
				unsettled: unsettledItems(space, bidders),
				rounds: round,
			};
		}
	}
}

const names = (bidders: readonly Bidder[]): string[] => bidders.map(bidder => bidder.oracle.agent);
