/**
 * Reading a `fetch` body with a byte bound, for every HTTP body either side of the transport reads from a peer it
 * does not control (error bodies, OAuth metadata, token introspection answers, client metadata documents): a peer
 * that sends more than the bound costs at most the bound, and the rest of the body is cancelled.
 */

/**
 * Reads a body as text, at most `maxBytes` of it; the rest is cancelled.
 * @returns The text, and whether the whole body was read.
 */
export async function readBoundedText(response: Response, maxBytes: number): Promise<{ readonly text: string; readonly complete: boolean }> {
  const body = response.body;
  if (body === null) return { text: '', complete: true };
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { text: text + decoder.decode(), complete: true };
      bytes += value.byteLength;
      if (bytes > maxBytes) {
        text += decoder.decode(value.subarray(0, value.byteLength - (bytes - maxBytes)));
        await reader.cancel().catch(() => undefined);
        return { text, complete: false };
      }
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    reader.releaseLock();
  }
}

