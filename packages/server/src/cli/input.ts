/** Reading secrets for the command line: all of stdin (--password-stdin), or a prompt that does not echo. */
import readline from 'node:readline';

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Asks on the terminal without echoing what is typed (stderr, so stdout stays clean for scripts). */
export function promptHidden(question: string): Promise<string> {
  return new Promise((resolve) => {
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    const rlInternal = rl as unknown as { _writeToOutput: (s: string) => void };
    let asked = false;
    rlInternal._writeToOutput = (s: string) => {
      // The question itself is written once; every keystroke after it stays hidden.
      if (!asked) process.stderr.write(s);
      asked = true;
    };
    rl.question(question, (answer) => {
      rl.close();
      process.stderr.write('\n');
      resolve(answer);
    });
  });
}
