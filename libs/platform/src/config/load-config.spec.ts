import { IsInt, IsString, Max, Min } from 'class-validator';
import { ConfigError, loadConfig } from './load-config';

class SampleConfig {
  @IsInt()
  @Min(1)
  @Max(65535)
  PORT = 8080;

  @IsString()
  NAME = 'default';
}

describe('loadConfig', () => {
  it('keeps defaults for unset or empty variables', () => {
    expect(loadConfig(SampleConfig, { NAME: '' })).toMatchObject({ PORT: 8080, NAME: 'default' });
  });

  it('reads numbers for numeric settings', () => {
    expect(loadConfig(SampleConfig, { PORT: '9000', NAME: 'x' })).toMatchObject({ PORT: 9000, NAME: 'x' });
  });

  it('fails naming every bad variable', () => {
    expect(() => loadConfig(SampleConfig, { PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig(SampleConfig, { PORT: '70000' })).toThrow(/PORT: PORT must not be greater than 65535/);
  });
});
