import type {Transcript} from './engine.ts';

/** The JSON form of a mediation (docs/mediation.md): the transcript as the engine wrote it. */
export function transcriptJson(transcript: Transcript): object {
	return {version: 1, ...transcript};
}

const option = (settlement: Readonly<Record<string, string>>): string =>
	Object.entries(settlement)
		.map(([item, chosen]) => `${item}=${chosen}`)
		.join(' ');

/** The text form: the outcome, the agreement or what could not be settled, the vetoes; every offer with `withOffers`. */
export function transcriptText(transcript: Transcript, withOffers = false): string {
	const {outcome, offers, rounds, agents} = transcript;
	const lines = [
		`mediation: ${outcome} after ${offers.length} offer${offers.length === 1 ? '' : 's'} in ${rounds} round${rounds === 1 ? '' : 's'} (${agents.join(', ')})`,
	];
	if (transcript.agreement) {
		for (const [item, chosen] of Object.entries(transcript.agreement)) lines.push(`  ${item}  ${chosen}`);
	} else {
		lines.push(`could not settle: ${transcript.unsettled.join(', ')}`);
	}
	for (const veto of transcript.vetoes)
		lines.push(`veto: ${veto.agent} can never accept ${veto.item}=${veto.option} (offer ${veto.offer})`);
	if (withOffers) {
		for (const entry of offers) {
			const answers = entry.answers
				.map(answer =>
					answer.answer === 'veto'
						? `${answer.agent} veto ${answer.options.map(vetoed => `${vetoed.item}=${vetoed.option}`).join(',')}`
						: `${answer.agent} ${answer.answer}`,
				)
				.join('; ');
			lines.push(`  #${entry.n} r${entry.round} ${entry.by}: ${option(entry.offer)} -> ${answers}`);
		}
	}
	return lines.join('\n');
}
