import {APPROVAL} from './approval.ts';
import {CONTRACTS} from './contracts.ts';
import {DECISIONS} from './decisions.ts';
import {FIRST_STEPS} from './first-steps.ts';
import {HELD_EFFECTS} from './effects.ts';
import {HELP} from './help.ts';
import {LANES} from './lanes.ts';
import {LOG} from './log.ts';
import {MOMENT} from './moment.ts';
import {NEEDS_YOU} from './needs-you.ts';
import type {BoardPanel} from './panel.ts';
import {QUESTION} from './question.ts';
import {REVIEWS} from './reviews.ts';
import {STATS} from './stats.ts';
import {TIMELINE} from './timeline.ts';

/**
 * Every panel of the board, in the order their views are made: a later panel's keys and scroll
 * win over an earlier one's (a timeline's stop key over the lanes'), and the rows they ask for
 * are stacked under the lanes in this order. To add a panel: its module here, one line in this
 * list, and a test (docs/architecture.md, "A panel").
 */
export const PANELS: readonly BoardPanel[] = [
	LANES,
	NEEDS_YOU,
	REVIEWS,
	HELD_EFFECTS,
	DECISIONS,
	CONTRACTS,
	STATS,
	FIRST_STEPS,
	APPROVAL,
	QUESTION,
	TIMELINE,
	LOG,
	HELP,
	MOMENT,
];
