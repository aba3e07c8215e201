// Ink loads react-devtools-core only when DEV=true; the bundle aliases it here so bundling Ink
// (which keeps the board's start fast) needs no optional devtools package.
export default {connectToDevTools() {}};
