import {selectReviews} from '../reviews-view.ts';
import type {BoardPanel} from './panel.ts';

/** Reviews: the latest verdicts, beside Needs you (in its band). */
export const REVIEWS: BoardPanel = {
	name: 'reviews',
	commands: [],
	view: ({state, now}) => ({view: {reviews: selectReviews(state.verdicts, now)}}),
};
