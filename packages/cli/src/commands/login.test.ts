import { describe, expect, it } from 'vitest';
import { browserCommand } from './login.js';

describe('browserCommand: the browser opener as an argument vector, no shell (review 2 finding 3)', () => {
  // An authorization URL with several query parameters, and one whose endpoint carries cmd metacharacters.
  const signIn = new URL('https://as.example.com/authorize?response_type=code&client_id=abc&state=x%26y&scope=mcp%3Atools+offline_access');
  const hostile = new URL('https://as.example.com/a?x&calc&|whoami^&%PATH%');

  it('on Windows runs rundll32 url.dll,FileProtocolHandler with the whole URL as one argument, never cmd', () => {
    for (const url of [signIn, hostile]) {
      const opener = browserCommand('win32', url);
      expect(opener).toEqual({ command: 'rundll32', args: ['url.dll,FileProtocolHandler', url.href] });
      expect(opener?.command).not.toMatch(/cmd|powershell/i);
    }
    expect(browserCommand('win32', hostile)?.args[1]).toBe('https://as.example.com/a?x&calc&|whoami^&%PATH%');
  });

  it('on macOS runs open <url>, on Linux and others xdg-open <url>', () => {
    expect(browserCommand('darwin', signIn)).toEqual({ command: 'open', args: [signIn.href] });
    expect(browserCommand('linux', hostile)).toEqual({ command: 'xdg-open', args: [hostile.href] });
    expect(browserCommand('freebsd', signIn)).toEqual({ command: 'xdg-open', args: [signIn.href] });
    expect(browserCommand('linux', new URL('http://127.0.0.1:8080/authorize?a=1&b=2'))?.args).toEqual(['http://127.0.0.1:8080/authorize?a=1&b=2']);
  });

  it('opens nothing but http(s): file:, javascript: and custom schemes give undefined on every platform', () => {
    for (const platform of ['win32', 'darwin', 'linux']) {
      for (const href of ['file:///etc/passwd', 'javascript:alert(1)//', 'ms-settings:', 'vbscript:msgbox']) {
        expect(browserCommand(platform, new URL(href)), `${platform} ${href}`).toBeUndefined();
      }
    }
  });
});
