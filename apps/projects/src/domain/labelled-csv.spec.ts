import { DatasetError, parseLabelledCsv } from './labelled-csv';

const problem = (text: string, maxRows?: number) => {
  try {
    parseLabelledCsv(text, maxRows);
  } catch (e) {
    if (e instanceof DatasetError) return { line: e.line, message: e.message };
    throw e;
  }
  throw new Error('parsed');
};

describe('parseLabelledCsv', () => {
  it('reads prompt,label rows with a header, labels true/1 and false/0 in any case', () => {
    expect(parseLabelledCsv('prompt,label\nmy ssn is 123-45-6789,true\nhello,0\nAgain,TRUE\nbye, False \n')).toEqual([
      { line: 2, prompt: 'my ssn is 123-45-6789', label: true },
      { line: 3, prompt: 'hello', label: false },
      { line: 4, prompt: 'Again', label: true },
      { line: 5, prompt: 'bye', label: false },
    ]);
  });

  it('reads rows without a header, and a header with other columns in any order', () => {
    expect(parseLabelledCsv('a,1\nb,0')).toEqual([
      { line: 1, prompt: 'a', label: true },
      { line: 2, prompt: 'b', label: false },
    ]);
    expect(parseLabelledCsv('id,Label,Prompt\n7,1,x\n')).toEqual([{ line: 2, prompt: 'x', label: true }]);
  });

  it('keeps quoted commas, quotes and newlines, and numbers lines as an editor does', () => {
    const rows = parseLabelledCsv('\uFEFFprompt,label\r\n\r\n"a, ""quoted""\nprompt",1\r\n\nlast,0\n');
    expect(rows).toEqual([
      { line: 3, prompt: 'a, "quoted"\nprompt', label: true },
      { line: 6, prompt: 'last', label: false },
    ]);
  });

  it('names the line of a bad label, a wrong field count and broken quoting', () => {
    expect(problem('prompt,label\nok,1\nhmm,maybe\n')).toEqual({
      line: 3,
      message: 'line 3: the label must be true, false, 1 or 0, not "maybe"',
    });
    expect(problem('prompt,label\nok,1\nhello, world,1\n')).toEqual({
      line: 3,
      message: 'line 3: expected 2 fields, found 3; quote a prompt that holds a comma',
    });
    expect(problem('prompt,label\nok,1\nlonely\n').line).toBe(3);
    expect(problem('prompt,label\nok,1\n"bad"x,0\n')).toMatchObject({
      line: 3,
      message: expect.stringContaining('closing quote'),
    });
    expect(problem('prompt,label\nok,1\n"never closed,0\nmore,1\n')).toEqual({
      line: 3,
      message: 'line 3: a quoted field is never closed',
    });
  });

  it('refuses a CSV without rows and one with too many', () => {
    expect(problem('prompt,label\n')).toEqual({ line: null, message: 'the CSV has no labelled rows' });
    expect(problem('')).toEqual({ line: null, message: 'the CSV has no labelled rows' });
    expect(problem('a,1\nb,0\nc,1\n', 2)).toEqual({ line: 3, message: 'line 3: a dataset holds at most 2 rows' });
  });
});
