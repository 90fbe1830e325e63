import fc from 'fast-check';
import type { RuntimeGuardrail } from '@bastion/contracts';
import type { Unreadable } from '../anthropic/content';
import { type ContentDelta, readStreamEvent } from '../anthropic/stream-event';
import { AnswerStreamGuard, type StreamEvent } from './answer-stream-guard';
import { compiledGuardrail } from './compiled-guardrails';
import { DirectionGuard, ScanBudget } from './direction-guard';

const SECRET = 'top secret plan';

function entry(mode: RuntimeGuardrail['mode'], patterns = ['top\\s+secret\\s+plan'], enabled = true): RuntimeGuardrail {
  return {
    id: `g-${mode}`,
    kind: 'scanner',
    name: 'g',
    type: 'regex',
    builtIn: false,
    version: 'latest',
    enabled,
    blocking: true,
    force: false,
    mode,
    direction: 'response',
    flagMessage: '',
    resolvedVersion: {
      id: 'v',
      name: 'v_1',
      published: true,
      direction: 'response',
      config: { type: 'regex', patterns },
    },
  };
}

/** A stream guard of these response scanners, refusing the unreadable content `refuses` says. */
function streamGuard(entries: RuntimeGuardrail[], refuses: (u: Unreadable) => boolean, holdBack = 32, enforce = true) {
  const direction = new DirectionGuard(entries, compiledGuardrail, 'response', enforce, new ScanBudget(10_000));
  return new AnswerStreamGuard(direction, holdBack, refuses);
}

function guardFor(mode: RuntimeGuardrail['mode'] | null, holdBack = 32, passUnreadable = false, enforce = true) {
  return streamGuard(mode ? [entry(mode)] : [], () => !passUnreadable, holdBack, enforce);
}

/** One content block of an answer, as a list of deltas. */
type Block =
  { kind: 'text' | 'thinking'; parts: string[] } | { kind: 'tool'; input: Record<string, unknown>; parts: string[] };

function events(blocks: Block[]): StreamEvent[] {
  const out: StreamEvent[] = [
    { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'm' } },
  ];
  blocks.forEach((b, index) => {
    if (b.kind === 'tool') {
      out.push({
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: 'tu_1', name: 'lookup', input: {} },
      });
      for (const p of b.parts)
        out.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: p } });
    } else {
      const field = b.kind;
      out.push({
        type: 'content_block_start',
        index,
        content_block: b.kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '' },
      });
      for (const p of b.parts)
        out.push({ type: 'content_block_delta', index, delta: { type: `${field}_delta`, [field]: p } });
    }
    out.push({ type: 'content_block_stop', index });
  });
  out.push({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } });
  out.push({ type: 'message_stop' });
  return out;
}

/**
 * How an event reaches the guard: read from its JSON as the proxy reads it (text deltas as
 * ContentDelta), or parsed whole (as an upstream that writes its JSON some other way is read).
 */
type Reader = (e: StreamEvent) => StreamEvent | ContentDelta;
const asProxyReads: Reader = (e) => readStreamEvent(JSON.stringify(e))!;
const parsedWhole: Reader = (e) => structuredClone(e);
const readers = fc.constantFrom(asProxyReads, parsedWhole);

/** Runs events through a guard as the proxy does; returns what the client received and whether it stopped. */
function run(
  guard: AnswerStreamGuard,
  input: StreamEvent[],
  read: Reader = asProxyReads,
): { out: StreamEvent[]; stop?: string } {
  const out: StreamEvent[] = [];
  for (const e of input) {
    const step = guard.push(read(e));
    out.push(...structuredClone(step.events));
    if (step.stop) return { out, stop: step.stop.reason };
  }
  const end = guard.finish();
  out.push(...structuredClone(end.events));
  return { out, stop: end.stop?.reason };
}

/** All the content the client could read, in order. */
function readable(out: StreamEvent[]): string {
  return out
    .map((e) => {
      const d = e.delta as Record<string, unknown> | undefined;
      if (!d) return '';
      if (d.type === 'text_delta') return String(d.text);
      if (d.type === 'thinking_delta') return String(d.thinking);
      if (d.type === 'input_json_delta')
        return Object.values(JSON.parse(String(d.partial_json)) as Record<string, string>).join('');
      return '';
    })
    .join('');
}

/** The tool input the client received, as one JSON text. */
function readableJson(out: StreamEvent[]): string {
  return out
    .map((e) => e.delta as Record<string, unknown> | undefined)
    .filter((d) => d?.type === 'input_json_delta')
    .map((d) => String(d!.partial_json))
    .join('');
}

/** Splits a text at random points into at least one piece. */
const splits = (text: string) =>
  fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, text.length - 1) }), { maxLength: 12 }).map((cuts) => {
    const points = [0, ...cuts.filter((c) => c < text.length).sort((a, b) => a - b), text.length];
    return points
      .slice(1)
      .map((p, i) => text.slice(points[i], p))
      .filter((p) => p.length > 0);
  });

/** Prose with the secret somewhere in it, split into up to three blocks of random kinds at random points. */
const answerWithSecret = fc
  .tuple(
    fc.string({ maxLength: 60 }).map((s) => s.replace(/[^a-z ]/g, 'x')),
    fc.string({ maxLength: 60 }).map((s) => s.replace(/[^a-z ]/g, 'y')),
  )
  .chain(([before, after]) => {
    const text = `${before} ${SECRET} ${after}`;
    return fc.tuple(
      fc.constant(text),
      splits(text),
      fc.array(fc.constantFrom<'text' | 'thinking'>('text', 'thinking'), { minLength: 3, maxLength: 3 }),
      fc.integer({ min: 1, max: 3 }),
    );
  })
  .map(([text, parts, kinds, blockCount]) => {
    const blocks: Block[] = [];
    const per = Math.ceil(parts.length / blockCount);
    for (let i = 0; i < parts.length; i += per)
      blocks.push({ kind: kinds[blocks.length % 3], parts: parts.slice(i, i + per) });
    return { text, blocks };
  });

describe('AnswerStreamGuard', () => {
  it('relays every event at once, in order, when the project has no response scanner', () => {
    const input = events([{ kind: 'text', parts: ['hello ', 'world'] }]);
    const guard = guardFor(null, 0);
    const first = guard.push(structuredClone(input[0]));
    expect(first.events).toHaveLength(1);
    const { out } = run(guard, input.slice(1));
    expect([first.events[0], ...out]).toEqual(input);
  });

  it('property: no character of a blocked match reaches the client, however the answer is split across deltas and blocks', () => {
    fc.assert(
      fc.property(answerWithSecret, readers, ({ text, blocks }, read) => {
        const { out, stop } = run(guardFor('block'), events(blocks), read);
        expect(stop).toBe('blocked');
        const seen = readable(out);
        expect(text.startsWith(seen)).toBe(true);
        expect(seen.length).toBeLessThanOrEqual(text.indexOf(SECRET));
      }),
      { numRuns: 300 },
    );
  });

  it('property: a redacted match arrives masked and everything else arrives unchanged', () => {
    fc.assert(
      fc.property(answerWithSecret, readers, ({ text, blocks }, read) => {
        const { out, stop } = run(guardFor('redact'), events(blocks), read);
        expect(stop).toBeUndefined();
        expect(readable(out)).toBe(text.replace(SECRET, '*'.repeat(SECRET.length)));
      }),
      { numRuns: 300 },
    );
  });

  it('property: clean answers arrive whole and in order, every event re-serialisable', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 200 }).chain((t) => fc.tuple(fc.constant(t), splits(t))),
        ([text, parts]) => {
          const input = events([{ kind: 'text', parts }]);
          const { out, stop } = run(guardFor('block'), input);
          expect(stop).toBeUndefined();
          expect(readable(out)).toBe(text);
          expect(out.map((e) => e.type)).toEqual(
            expect.arrayContaining(['message_start', 'content_block_start', 'content_block_stop', 'message_stop']),
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('scans a tool call by its decoded input, even when its JSON escapes the match', () => {
    const json = JSON.stringify({ q: 'the top secret plan' }).replace('secret', '\\u0073ecret');
    const parts = [json.slice(0, 7), json.slice(7, 15), json.slice(15)];
    expect(run(guardFor('block'), events([{ kind: 'tool', input: {}, parts }])).stop).toBe('blocked');
    const redacted = run(guardFor('redact'), events([{ kind: 'tool', input: {}, parts }]));
    expect(readable(redacted.out)).toBe(`the ${'*'.repeat(SECRET.length)}`);
  });

  it('refuses a tool input that is not JSON, and content types it does not know unless the project passes them', () => {
    expect(run(guardFor('block'), events([{ kind: 'tool', input: {}, parts: ['{"q": "unterminated'] }])).stop).toBe(
      'malformed',
    );
    const unknown: StreamEvent[] = [
      { type: 'content_block_start', index: 0, content_block: { type: 'hologram', payload: SECRET } },
    ];
    expect(run(guardFor('block'), unknown).stop).toBe('unreadable');
    const passed = guardFor('block', 32, true);
    const textStart: StreamEvent = { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } };
    expect(
      run(passed, [textStart, { type: 'content_block_delta', index: 0, delta: { type: 'hologram_delta', x: 1 } }]).stop,
    ).toBeUndefined();
    expect(passed.unreadable).toEqual([expect.objectContaining({ type: 'delta/hologram_delta' })]);
  });

  it('treats a delta type named like an inherited property as content it does not know', () => {
    const input: StreamEvent[] = [
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'constructor', text: SECRET } },
    ];
    expect(run(guardFor('block'), input).stop).toBe('unreadable');
  });

  it('refuses blocks out of the order the API sends them: a block started twice, a delta for a block not open', () => {
    const start = (index: number, text = ''): StreamEvent => ({
      type: 'content_block_start',
      index,
      content_block: { type: 'text', text },
    });
    const delta = (index: number, text: string): StreamEvent => ({
      type: 'content_block_delta',
      index,
      delta: { type: 'text_delta', text },
    });
    const stop = (index: number): StreamEvent => ({ type: 'content_block_stop', index });
    for (const [input, stopped] of [
      // The client shows block 0 "abc" and, apart, "hunter2"; read joined they were "abchunter2".
      [[start(0), delta(0, 'abc'), stop(0), start(0, 'hunter2'), stop(0)], true],
      // "hunt" and "er2" both go into the client's block 0, around block 1.
      [[start(0), delta(0, 'hunt'), start(1), delta(1, 'x'), stop(1), delta(0, 'er2'), stop(0)], true],
      [[start(0), stop(0), delta(0, 'late')], true],
      [[start(1)], true],
      [[start(0), delta(0, 'a'), stop(0), start(1), delta(1, 'b'), stop(1)], false],
      // The client's block 0 would be the message's "hunt" joined by the deltas' "er2".
      [
        [
          {
            type: 'message_start',
            message: {
              id: 'm',
              type: 'message',
              role: 'assistant',
              model: 'm',
              content: [{ type: 'text', text: 'hunt' }],
            },
          },
          start(0, 'x'),
          delta(0, 'er2'),
          stop(0),
        ],
        true,
      ],
    ] as const) {
      for (const reader of [asProxyReads, parsedWhole]) {
        for (const guard of [streamGuard([entry('block', ['\\bhunter2\\b'])], () => true), guardFor(null)])
          expect(run(guard, [...input], reader).stop).toBe(stopped ? 'malformed' : undefined);
      }
    }
  });

  it('joins small deltas that wait for the same scan into one event, and keeps a delta with other fields apart', () => {
    const guard = guardFor('block', 1024);
    guard.push({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    const out: StreamEvent[] = [];
    const parts = Array.from({ length: 200 }, (_, i) => `w${i} `);
    for (const [i, text] of parts.entries()) {
      const delta = i === 100 ? { type: 'text_delta', text, note: 'kept' } : { type: 'text_delta', text };
      out.push(...structuredClone(guard.push({ type: 'content_block_delta', index: 0, delta }).events));
    }
    out.push(...structuredClone(guard.finish().events));
    const deltas = out.filter((e) => e.type === 'content_block_delta');
    expect(readable(out)).toBe(parts.join(''));
    expect(deltas.length).toBeLessThan(parts.length / 2);
    expect(
      deltas
        .filter((e) => (e.delta as Record<string, unknown>).note === 'kept')
        .map((e) => (e.delta as Record<string, unknown>).text),
    ).toEqual([parts[100]]);
  });

  it('holds back only what could still become a match: clean prose leaves while the answer streams', () => {
    const guard = guardFor('block', 1024);
    guard.push({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    let released = '';
    for (let i = 0; i < 40; i++) {
      released += readable(
        guard.push({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'abcd' } }).events,
      );
    }
    // The engine scans every 32 new characters; a few characters of context stay behind.
    expect(released.length).toBeGreaterThanOrEqual(160 - 32 - 16);
  });

  it('finds a match at the very end of a long answer', () => {
    const parts = Array.from({ length: 50_000 }, () => 'abcd');
    parts.push(' top secret plan');
    const { stop } = run(guardFor('block', 1024), events([{ kind: 'text', parts }]));
    expect(stop).toBe('blocked');
  });

  it('in a project that does not enforce, records matches but holds nothing back', () => {
    const guard = guardFor('block', 64, false, false);
    guard.push({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    const step = guard.push({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: SECRET } });
    expect(readable(step.events)).toBe(SECRET);
  });

  describe('blocks that meet letter to letter', () => {
    const WORD = 'hunter2';
    const wholeWord = (mode: RuntimeGuardrail['mode']) => streamGuard([entry(mode, ['\\bhunter2\\b'])], () => true);

    it("scans a tool input's strings that meet letter to letter each once, whole, with no stream scanner per string", () => {
      // A hostile upstream's tool input of many short strings, each meeting the next: a stream
      // scanner apiece would cost the proxy its construction per string, outside the scan budget.
      const input = Object.fromEntries([
        ...Array.from({ length: 300 }, (_, i) => [`k${i}`, 'xa']),
        ['w', WORD],
        ['z', 'bx'],
      ]);
      const json = JSON.stringify(input);
      for (const mode of ['block', 'redact'] as const) {
        const direction = new DirectionGuard(
          [entry(mode, ['\\bhunter2\\b'])],
          compiledGuardrail,
          'response',
          true,
          new ScanBudget(10_000),
        );
        const streams = jest.spyOn(direction, 'stream');
        const { out, stop } = run(
          new AnswerStreamGuard(direction, 32, () => true),
          events([{ kind: 'tool', input: {}, parts: [json.slice(0, 100), json.slice(100)] }]),
        );
        expect(streams).toHaveBeenCalledTimes(1);
        if (mode === 'block') expect(stop).toBe('blocked');
        else expect(JSON.parse(readableJson(out)).w).toBe('*'.repeat(WORD.length));
      }
    });
    /** Lowercase words ending (or starting) with a letter, so each edge with the word hides it in the join. */
    const letters = fc
      .array(fc.constantFrom('ab', 'cd ', 'ef', ' gh', 'ij'), { minLength: 1, maxLength: 8 })
      .map((w) => `q${w.join('')}q`);
    const asBlocks = (texts: string[]) =>
      fc.tuple(...texts.map((t) => splits(t))).map((parts) => parts.map((p): Block => ({ kind: 'text', parts: p })));

    it('property: a whole word that stands alone at the start or the end of its block is found, and none of it leaves', () => {
      fc.assert(
        fc.property(
          fc.tuple(letters, letters, fc.boolean()).chain(([before, after, atStart]) =>
            // The word starts the second block or ends the first, a word of its own there; the join
            // reads "...q hunter2q..." or "...qhunter2 q...".
            asBlocks(atStart ? [before, `${WORD} ${after}`] : [`${before} ${WORD}`, after]).map((blocks) => ({
              before: atStart ? before : `${before} `,
              after: atStart ? ` ${after}` : after,
              blocks,
            })),
          ),
          fc.boolean(),
          readers,
          ({ before, after, blocks }, redact, read) => {
            const { out, stop } = run(wholeWord(redact ? 'redact' : 'block'), events(blocks), read);
            if (redact) {
              expect(stop).toBeUndefined();
              expect(readable(out)).toBe(before + '*'.repeat(WORD.length) + after);
            } else {
              expect(stop).toBe('blocked');
              expect(readable(out).length).toBeLessThanOrEqual(before.length);
            }
          },
        ),
        { numRuns: 200 },
      );
    });

    it('finds the word at the end of a long block, and makes none up where it cuts a long block', () => {
      const prose = 'word '.repeat(600);
      const blocked = run(
        wholeWord('block'),
        events([
          { kind: 'text', parts: [prose + WORD] },
          { kind: 'text', parts: ['abc'] },
        ]),
      );
      expect(blocked.stop).toBe('blocked');
      expect(readable(blocked.out)).not.toContain('hunter');
      // A run of letters longer than what is rescanned: the cut lands inside it and must not read as an edge.
      const run1 = 'x'.repeat(3000) + WORD;
      const clean = run(
        wholeWord('block'),
        events([
          { kind: 'text', parts: [run1] },
          { kind: 'text', parts: ['abc'] },
        ]),
      );
      expect(clean.stop).toBeUndefined();
      expect(readable(clean.out)).toBe(`${run1}abc`);
    });

    it('makes up no match where it cuts a long block that has no edge near the cut', () => {
      const pii = entry('block');
      const card = () =>
        streamGuard(
          [{ ...pii, type: 'pii', resolvedVersion: { ...pii.resolvedVersion, config: { type: 'pii' } } }],
          () => true,
        );
      // Whatever the cut, one of these lengths puts it right at the match, which then reads as
      // standing alone; it does not reach the block's end, so alone it reads as joined.
      for (let after = 40; after <= 200; after += 1) {
        for (const [guard, first] of [
          [wholeWord('block'), `${'x'.repeat(3000)}${WORD}${'\u0436'.repeat(after)}`],
          [wholeWord('redact'), `${'x'.repeat(3000)}${WORD}${'\u0436'.repeat(after)}`],
          [card(), `${'7'.repeat(2000)}4111111111111111${'\u3002'.repeat(after)}`],
        ] as const) {
          const { out, stop } = run(
            guard,
            events([
              { kind: 'text', parts: [first] },
              { kind: 'text', parts: ['abc'] },
            ]),
          );
          expect(stop).toBeUndefined();
          expect(readable(out)).toBe(`${first}abc`);
        }
      }
    });

    it("reads a delta's text as its own block's only under the block's own field", () => {
      // A thinking block, then a text delta whose extra field is named like the thinking block's:
      // that field is a part of its own, and "hunter2" stands alone in it.
      const input: StreamEvent[] = [
        { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'abc' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: '', thinking: WORD } },
        { type: 'content_block_stop', index: 0 },
      ];
      expect(run(wholeWord('block'), input).stop).toBe('blocked');
    });

    it('leaves blocks that meet at an edge, or meet without a match, as they came', () => {
      for (const texts of [
        ['say ', `${WORD} now`],
        ['plain', 'text'],
      ]) {
        const { out, stop } = run(wholeWord('block'), events(texts.map((t) => ({ kind: 'text', parts: [t] }))));
        expect(stop).toBe(texts[0] === 'say ' ? 'blocked' : undefined);
        if (!stop) expect(readable(out)).toBe(texts.join(''));
      }
    });
  });

  describe('what a hostile upstream puts beside the content', () => {
    const start: StreamEvent = { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } };
    const stop: StreamEvent = { type: 'content_block_stop', index: 0 };
    const text = (t: string): StreamEvent => ({
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: t },
    });

    it.each<[string, StreamEvent[]]>([
      [
        'a field beside a text delta',
        [start, { ...text('hello'), delta: { type: 'text_delta', text: 'hi', note: SECRET } }, stop],
      ],
      ['a field of the event', [start, { ...text('hello'), note: SECRET }, stop]],
      [
        'the model of message_start',
        [
          {
            type: 'message_start',
            message: { id: 'm', type: 'message', role: 'assistant', content: [], model: SECRET },
          },
        ],
      ],
      [
        'a stop sequence',
        [
          {
            type: 'message_delta',
            delta: { stop_reason: 'stop_sequence', stop_sequence: SECRET },
            usage: { output_tokens: 1 },
          },
        ],
      ],
      ['a key of its own', [start, stop, { type: 'ping', [SECRET]: 1 }]],
      [
        'a citation field the API does not define',
        [
          start,
          {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'citations_delta', citation: { type: 'char_location', cited_text: 'x', x: SECRET } },
          },
          stop,
        ],
      ],
      [
        'a signature',
        [
          { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: SECRET } },
          stop,
        ],
      ],
      ['an error type', [{ type: 'error', error: { type: SECRET, message: 'x' } }]],
    ])('blocks %s that holds the match, and masks it when redacting', (_, input) => {
      for (const read of [asProxyReads, parsedWhole]) {
        expect(run(guardFor('block'), input, read).stop).toBe('blocked');
        const redacted = run(guardFor('redact'), input, read);
        expect(redacted.stop).toBeUndefined();
        expect(JSON.stringify(redacted.out)).not.toContain('secret');
        expect(JSON.stringify(redacted.out)).toContain('*'.repeat(SECRET.length));
      }
    });

    // The client's block text is its own text alone ("top sec" + "ret plan"): what else an event of
    // the block carries (a citation, a title beside an empty text) is shown apart from it, so it
    // must not stand inside that text in what the guard reads.
    it.each<[string, StreamEvent[]]>([
      [
        'a citation between two text deltas',
        [
          start,
          text('top sec'),
          {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'citations_delta', citation: { type: 'char_location', cited_text: 'x' } },
          },
          text('ret plan'),
          stop,
        ],
      ],
      [
        'a title beside an empty text between two text deltas',
        [
          start,
          text('top sec'),
          { ...text(''), delta: { type: 'text_delta', text: '', title: 'zz' } },
          text('ret plan'),
          stop,
        ],
      ],
      [
        'a citation in the block start before the text goes on',
        [
          {
            type: 'content_block_start',
            index: 0,
            content_block: { type: 'text', text: 'top sec', citations: [{ type: 'char_location', cited_text: 'x' }] },
          },
          text('ret plan'),
          stop,
        ],
      ],
    ])('blocks a match of the block text split by %s, and masks it when redacting', (_, input) => {
      for (const read of [asProxyReads, parsedWhole]) {
        expect(run(guardFor('block'), input, read).stop).toBe('blocked');
        const redacted = run(guardFor('redact'), input, read);
        expect(redacted.stop).toBeUndefined();
        expect(JSON.stringify(redacted.out)).not.toMatch(/top sec|ret plan/);
        expect(readable(redacted.out)).toContain('****');
      }
    });

    it.each<[string, StreamEvent[]]>([
      [
        'a delta without an index',
        [start, { type: 'content_block_delta', delta: { type: 'text_delta', text: 'hi' }, note: SECRET }],
      ],
      ['an index that is a string', [start, { ...text('hi'), index: SECRET }]],
      ['an index that is an object', [start, { ...text('hi'), index: { [SECRET]: 1 } }]],
      ['a message that is a string', [{ type: 'message_start', message: SECRET }]],
      ['a block that is a string', [{ type: 'content_block_start', index: 0, content_block: SECRET }]],
      ['a delta that is a string', [start, { type: 'content_block_delta', index: 0, delta: SECRET }]],
      // A client adds a delta's text to the block's whatever it is: "AKIA" then ["IOSF..."] reads as one key.
      [
        'a text delta missing its text, with another field',
        [start, { ...text(''), delta: { type: 'text_delta', note: SECRET } }, stop],
      ],
      ['a text that is a list', [start, { ...text(''), delta: { type: 'text_delta', text: [SECRET] } }, stop]],
      [
        'a text that is an object beside another field',
        [start, { ...text(''), delta: { type: 'text_delta', text: { [SECRET]: 1 }, x: 1 } }, stop],
      ],
      [
        'a text that is a number',
        [start, text('card 4111 1111 1111 '), { ...text(''), delta: { type: 'text_delta', text: 1111 } }, stop],
      ],
      [
        'a thinking text that is a list',
        [
          { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: ['x'] } },
          stop,
        ],
      ],
    ])('calls %s malformed', (_, input) => {
      for (const read of [asProxyReads, parsedWhole])
        expect(run(guardFor('block'), input, read).stop).toBe('malformed');
    });

    it.each<[string, StreamEvent[]]>([
      [
        'a tool input that is a bare string',
        [
          { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 't', name: 'n', input: {} } },
          { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '"top sec' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: 'ret plan"' } },
          stop,
        ],
      ],
      [
        'a text block whose text is a list',
        [{ type: 'content_block_start', index: 0, content_block: { type: 'text', text: [SECRET] } }, stop],
      ],
      [
        'an image URL',
        [
          {
            type: 'content_block_start',
            index: 0,
            content_block: { type: 'image', source: { type: 'url', url: `https://x/${SECRET}` } },
          },
          stop,
        ],
      ],
      [
        'a message whose content is not a list',
        [{ type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', content: SECRET } }],
      ],
    ])('scans %s', (_, input) => {
      for (const read of [asProxyReads, parsedWhole])
        expect(run(guardFor('block', 32, true), input, read).stop).toBe('blocked');
    });

    it('scans the fields of an event or delta type it does not know when the project passes them', () => {
      const pass = () => guardFor('block', 32, true);
      expect(run(pass(), [{ type: 'hologram', x: SECRET }]).stop).toBe('blocked');
      expect(
        run(pass(), [start, { type: 'content_block_delta', index: 0, delta: { type: 'hologram_delta', x: SECRET } }])
          .stop,
      ).toBe('blocked');
      expect(run(pass(), [{ type: 'hologram', x: 'fine' }]).stop).toBeUndefined();
    });

    it.each<[string, Block]>([
      ['a thinking block', { kind: 'thinking', parts: ['-'] }],
      ['a tool call', { kind: 'tool', input: { q: '-' }, parts: ['{"q":', '"-"}'] }],
    ])(
      'sees a match split across two text blocks with %s between, as a client showing only text reads it',
      (_, between) => {
        // Joined in the answer's order "the top sec-ret plan" holds no match; the client shows "the top secret plan".
        const input = events([
          { kind: 'text', parts: ['the top sec'] },
          between,
          { kind: 'text', parts: ['ret plan', ' ok'] },
        ]);
        for (const read of [asProxyReads, parsedWhole]) {
          const blocked = run(guardFor('block'), input, read);
          expect(blocked.stop).toBe('blocked');
          expect(readable(blocked.out)).not.toContain('ret');
          // The first half may have left before the second came: a redaction cannot cover it, so it stops too.
          expect(run(guardFor('redact'), input, read).stop).toBe('blocked');
        }
      },
    );

    it('stops as blocked a redaction whose match runs past the hold-back before its end is known', () => {
      // A match longer than the hold-back (the body of a private key) is reported before its end
      // shows: masking what was seen would let the rest of it out.
      const guard = () => streamGuard([entry('redact', ['top\\s+secret[a-z]*'])], () => true, 32);
      const body = 'x'.repeat(80);
      const input = events([{ kind: 'text', parts: ['a top secret', ...body.match(/.{1,8}/g)!, 'y', ' and more'] }]);
      for (const read of [asProxyReads, parsedWhole]) {
        const out = run(guard(), input, read);
        expect(out.stop).toBe('blocked');
        expect(readable(out.out)).not.toContain('xxxxxxxxy');
      }
      // One within the hold-back is masked whole, as before.
      const short = events([{ kind: 'text', parts: ['a top secret', 'xxx', 'y and more'] }]);
      expect(readable(run(guard(), short).out)).toBe(`a ${'*'.repeat('top secretxxxy'.length)} and more`);
    });

    it('sees a match split across three text blocks with other blocks between each', () => {
      const input = events([
        { kind: 'text', parts: ['the top'] },
        { kind: 'thinking', parts: ['.'] },
        { kind: 'text', parts: [' sec'] },
        { kind: 'tool', input: { q: '.' }, parts: ['{"q":"."}'] },
        { kind: 'text', parts: ['ret plan ok'] },
      ]);
      for (const read of [asProxyReads, parsedWhole]) {
        const out = run(guardFor('block'), input, read);
        expect(out.stop).toBe('blocked');
        expect(readable(out.out)).not.toContain('ret plan');
      }
    });

    it('masks a match within a text block that follows other blocks as it would without them', () => {
      const input = events([
        { kind: 'text', parts: ['hello'] },
        { kind: 'thinking', parts: ['hmm'] },
        { kind: 'text', parts: ['it is a top ', 'secret plan ok'] },
      ]);
      for (const read of [asProxyReads, parsedWhole]) {
        const redacted = run(guardFor('redact'), input, read);
        expect(redacted.stop).toBeUndefined();
        expect(readable(redacted.out)).toBe(`hellohmmit is a ${'*'.repeat(SECRET.length)} ok`);
      }
    });

    it('sees a match split across blocks whole though a field scanned alone stands between them', () => {
      const input: StreamEvent[] = [
        start,
        text('the top sec'),
        stop,
        { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '', note: 'x' } },
        { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'ret plan' } },
        { type: 'content_block_stop', index: 1 },
      ];
      for (const read of [asProxyReads, parsedWhole]) {
        expect(run(guardFor('block'), input, read).stop).toBe('blocked');
        expect(readable(run(guardFor('redact'), input, read).out)).toBe(`the ${'*'.repeat(SECRET.length)}`);
      }
    });

    it('keeps the input a tool call started with when no input was streamed', () => {
      const input: StreamEvent[] = [
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: 't', name: 'n', input: { q: 'kept' } },
        },
        stop,
      ];
      const out = run(guardFor('block'), input).out;
      expect(out.map((e) => e.type)).toEqual(['content_block_start', 'content_block_stop']);
    });

    it('masks a tool input whose key and value both match, the value under its new key', () => {
      const stars = '*'.repeat(SECRET.length);
      const input = { [SECRET]: `the ${SECRET}` };
      const json = JSON.stringify(input);
      const streamed = run(
        guardFor('redact'),
        events([{ kind: 'tool', input: {}, parts: [json.slice(0, 9), json.slice(9)] }]),
      );
      const delta = streamed.out.find((e) => (e.delta as { type?: string } | undefined)?.type === 'input_json_delta');
      expect(JSON.parse((delta!.delta as { partial_json: string }).partial_json)).toEqual({ [stars]: `the ${stars}` });
      const started = run(guardFor('redact'), [
        { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 't', name: 'n', input } },
        stop,
      ]);
      expect((started.out[0].content_block as { input: object }).input).toEqual({ [stars]: `the ${stars}` });
    });

    it("scans a tool input's keys and numbers, and masks them in place", () => {
      const json = JSON.stringify({ card: 4111111111111111, '4111111111111111': 'x', n: 1 });
      const out = run(
        streamGuard([entry('redact', ['4111111111111111'])], () => true),
        events([{ kind: 'tool', input: {}, parts: [json.slice(0, 9), json.slice(9)] }]),
      ).out;
      const sent = out.find((e) => (e.delta as Record<string, unknown> | undefined)?.type === 'input_json_delta')!;
      const stars = '*'.repeat(16);
      expect(JSON.parse((sent.delta as { partial_json: string }).partial_json)).toEqual({
        card: stars,
        [stars]: 'x',
        n: 1,
      });
    });

    it('leaves token counts and indices as numbers, scanned neither alone nor together', () => {
      const out = run(
        streamGuard([entry('redact', ['\\d+'])], () => true),
        events([{ kind: 'text', parts: ['no digits here'] }]),
      ).out;
      expect(out.find((e) => e.type === 'message_delta')).toEqual(
        expect.objectContaining({ usage: { output_tokens: 1 } }),
      );
      expect(out.filter((e) => e.type === 'content_block_start').map((e) => e.index)).toEqual([0]);
    });

    it("follows the project's setting per content as a JSON answer does: an image passes flagged, a type it does not know stops", () => {
      const byKind = () => streamGuard([entry('block')], (u) => u.kind === 'unknown');
      const image: StreamEvent[] = [
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'image', source: { type: 'base64', data: 'AA==' } },
        },
        stop,
      ];
      const passed = byKind();
      expect(run(passed, image).stop).toBeUndefined();
      expect(passed.unreadable).toEqual([expect.objectContaining({ type: 'image', kind: 'opaque' })]);
      const withAlt = [{ ...image[0], content_block: { ...(image[0].content_block as object), alt: SECRET } }, stop];
      expect(run(byKind(), withAlt).stop).toBe('blocked');
      const hologram = [{ ...image[0], content_block: { type: 'hologram' } }, stop];
      expect(run(byKind(), hologram).stop).toBe('unreadable');
    });

    it('refuses a tool input delta that carries more than its JSON', () => {
      const input: StreamEvent[] = [
        { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 't', name: 'n', input: {} } },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{}', note: 'x' } },
        { type: 'content_block_stop', index: 0 },
      ];
      expect(run(guardFor('block'), input).stop).toBe('malformed');
    });
  });
});
