/** The IPC messages between `switchboard dev` and one generation (`dev/child.ts`). */

/** From a generation: it serves (`url`: its Streamable HTTP endpoint), or its module failed to load. */
export type ChildMessage = { readonly type: 'ready'; readonly url?: string } | { readonly type: 'failed'; readonly message: string };

/** To a generation: drain and exit (HTTP; a stdio generation ends with its stdin). */
export type ParentMessage = { readonly type: 'stop' };
