// The floor for the board's first frame: the least an Ink board can do. It loads Ink and React
// (bundled by board.bench.mjs as `npm run build` bundles the board, `fetch` hidden while Ink loads,
// as the board hides it) and draws one frame of 44 coloured rows across the pane, then the marker
// the bench waits for. No ledger, no state, no keys.
Object.defineProperty(globalThis, 'fetch', {value: undefined, configurable: true, writable: true});
const {render, Box, Text} = await import('ink');
const {createElement} = await import('react');

const rows = Array.from({length: 44}, (_, index) =>
	createElement(Text, {key: index, color: index % 2 === 0 ? 'green' : 'yellow', wrap: 'truncate'}, `row ${index} `.repeat(20)),
);
render(createElement(Box, {flexDirection: 'column'}, ...rows, createElement(Text, {key: 'end'}, 'INK FLOOR READY')));
setInterval(() => {}, 1e6);
