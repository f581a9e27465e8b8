/** One GraphQL subscription over Server-Sent Events, read from a real socket as a client would. */
export interface SseSubscription {
  status: number;
  headers: Headers;
  /** The next `next` event's payload (waits for it); rejects when the stream completes first. */
  next(): Promise<{
    data?: Record<string, any> | null;
    errors?: { message: string; extensions?: Record<string, unknown> }[];
  }>;
  /** Resolves when the server completes the stream (an `event: complete` or the end of the body). */
  completed: Promise<void>;
  close(): void;
}

export async function subscribe(
  url: string,
  headers: Record<string, string>,
  query: string,
  variables?: Record<string, unknown>,
): Promise<SseSubscription> {
  const controller = new AbortController();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify({ query, variables }),
    signal: controller.signal,
  });
  const queue: any[] = [];
  const waiters: { resolve: (value: any) => void; reject: (error: Error) => void }[] = [];
  let done = false;
  let finish!: () => void;
  const completed = new Promise<void>((resolve) => (finish = resolve));
  const end = () => {
    done = true;
    finish();
    for (const waiter of waiters.splice(0)) waiter.reject(new Error('the stream completed'));
  };
  const deliver = (payload: any) => {
    const waiter = waiters.shift();
    if (waiter) waiter.resolve(payload);
    else queue.push(payload);
  };
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event === 'complete') return end();
          if (data && (event === 'next' || event === undefined)) deliver(JSON.parse(data));
        }
      }
    } catch {
      // aborted by close()
    }
    end();
  })();
  return {
    status: response.status,
    headers: response.headers,
    next: () =>
      queue.length
        ? Promise.resolve(queue.shift())
        : done
          ? Promise.reject(new Error('the stream completed'))
          : new Promise((resolve, reject) => waiters.push({ resolve, reject })),
    completed,
    close: () => controller.abort(),
  };
}
