/**
 * The captions the importer writes (ingest/transcripts.ts toWebVtt) read back, by the WebVTT parser's block rules
 * (W3C WebVTT §6.1, "collect a WebVTT block"), as the same cues: a cue's text never holds a line that a player takes
 * for a new cue's timing (one with "-->") nor a blank line that ends the cue early.
 */
import { describe, expect, it } from 'vitest';
import { parseTranscript, toWebVtt } from '../../src/ingest/transcripts.ts';

/** The cue blocks of a WebVTT file as a player's parser splits them: lines end at CR, LF or CRLF; a block ends at a
 * blank line, or at a second line holding "-->" (which starts the next block). */
function playerCues(vtt: string): { timing: string; text: string }[] {
  const lines = vtt.split(/\r\n|\r|\n/);
  expect(lines[0]).toBe('WEBVTT');
  const cues: { timing: string; text: string }[] = [];
  let i = 1;
  while (i < lines.length) {
    if (lines[i] === '') {
      i++;
      continue;
    }
    const block: string[] = [];
    let timing: string | null = null;
    for (; i < lines.length && lines[i] !== ''; i++) {
      const line = lines[i]!;
      if (line.includes('-->')) {
        if (timing !== null) break; // a new cue begins here
        if (block.length > 1) break;
        timing = line;
        block.length = 0;
        continue;
      }
      block.push(line);
    }
    if (timing !== null) cues.push({ timing, text: block.join('\n') });
  }
  return cues;
}

const decoded = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

describe('toWebVtt', () => {
  it('writes each cue so that a player reads it whole, whatever its text holds', () => {
    const source = [
      'WEBVTT',
      '',
      '1',
      '00:00:01.000 --> 00:00:02.000',
      'the arrow --&gt; points on',
      '',
      '2',
      '00:00:03.000 --> 00:00:04.000',
      'first line',
      '00:00:09.000 --&gt; 00:00:10.000',
      '',
      '3',
      '00:00:05.000 --> 00:00:06.000',
      '42',
      '00:00:07.000',
      '',
      '4',
      '00:00:07.000 --> 00:00:08.000',
      'before&#13;&#13;after&#x0D;end',
      '',
    ].join('\n');
    const cues = parseTranscript(source, 'talk.vtt');
    expect(cues.map((c) => c.text)).toEqual([
      'the arrow --> points on',
      'first line\n00:00:09.000 --> 00:00:10.000',
      '42\n00:00:07.000',
      'before\nafter\nend',
    ]);
    const vtt = toWebVtt(cues);
    const read = playerCues(vtt);
    expect(read.map((c) => c.timing)).toEqual([
      '00:00:01.000 --> 00:00:02.000',
      '00:00:03.000 --> 00:00:04.000',
      '00:00:05.000 --> 00:00:06.000',
      '00:00:07.000 --> 00:00:08.000',
    ]);
    expect(read.map((c) => decoded(c.text))).toEqual(cues.map((c) => c.text));
    expect(vtt).toContain('the arrow --&gt; points on');
    // and the file reads back through the importer's own parser as the same cues
    expect(parseTranscript(vtt, 'again.vtt')).toEqual(cues);
  });
});
