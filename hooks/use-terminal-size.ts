import {useStdout} from 'ink';
import {useEffect, useState} from 'react';
import {terminalSizeOf, type TerminalSize} from './terminal-size.ts';

/** The terminal's columns and rows, updated on resize (Ink 6 has no useWindowSize). */
export function useTerminalSize(): TerminalSize {
	const {stdout} = useStdout();
	const [size, setSize] = useState(() => terminalSizeOf(stdout));
	useEffect(() => {
		const onResize = () => setSize(terminalSizeOf(stdout));
		stdout.on('resize', onResize);
		return () => {
			stdout.off('resize', onResize);
		};
	}, [stdout]);
	return size;
}
