// Node's own WebSocket, with the address of every socket the SDK opens and every message it receives written
// down: what tells a test the SDK listened rather than polled.

export function watchedWebSocket() {
  const urls: string[] = [];
  const messages: { url: string; data: Record<string, unknown> }[] = [];
  class WatchedWebSocket extends WebSocket {
    constructor(url: string) {
      super(url);
      urls.push(url);
      this.addEventListener("message", (event) =>
        messages.push({ url, data: JSON.parse(String(event.data)) }),
      );
    }
  }
  return { WebSocket: WatchedWebSocket, urls, messages };
}
