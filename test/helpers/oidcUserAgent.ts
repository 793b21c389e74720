/**
 * The user-agent step of an authorization-code sign-in at `oidc-provider` without a browser: follows redirects with
 * cookies and fills its development login (any user) and consent forms, until the redirect to `redirectUri`, whose
 * URL it returns (what a browser would load at the client's loopback listener).
 */
export async function signInAtOidcProvider(authorizationUrl: URL | string, redirectUri: string): Promise<string> {
  const cookies = new Map<string, string>();
  let next = typeof authorizationUrl === 'string' ? authorizationUrl : authorizationUrl.href;
  let form: string | undefined;
  for (let step = 0; step < 12; step++) {
    const response = await fetch(next, {
      method: form === undefined ? 'GET' : 'POST',
      redirect: 'manual',
      headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '), ...(form === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) },
      ...(form === undefined ? {} : { body: form }),
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const at = pair.indexOf('=');
      cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    form = undefined;
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      const location = new URL(response.headers.get('location') ?? '', next).href;
      if (location.startsWith(redirectUri)) return location;
      next = location;
      continue;
    }
    const html = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (action === undefined) throw new Error(`no form at ${next} (HTTP ${response.status}): ${html.slice(0, 300)}`);
    const hidden = [...html.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)].map((m) => `${m[1]}=${encodeURIComponent(m[2] ?? '')}`);
    form = [...hidden, ...(/name="login"/.test(html) ? ['login=alice', 'password=any'] : [])].join('&');
    next = new URL(action, next).href;
  }
  throw new Error('the sign-in took more than 12 steps');
}
