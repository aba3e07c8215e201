import {render} from 'ink-testing-library';
import {expect, it} from 'vitest';
import {BoardView} from '../../components/BoardView.tsx';
import {fixtureScreen} from '../helpers/board-state.ts';

// The layout regression net (STYLE.md R25): the whole board at 100 columns, fixed now, digits normalized.
it('draws the full board at 100 columns the same way every time', () => {
	const {lastFrame} = render(<BoardView screen={fixtureScreen({width: 100, height: 34})} />);
	expect((lastFrame() ?? '').replace(/\d/g, '0')).toMatchSnapshot();
});
