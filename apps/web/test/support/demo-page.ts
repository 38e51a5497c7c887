// Drives the demo store in a browser tab the way a shopper does (open the link, sign in as the shopper, read the
// stock, press Buy now) and reads back what the page shows: the steps, the queue line, the final outcome, and
// every API request the page sent with the bearer it carried.
import type { Browser, BrowserContext, Page } from "playwright-core";

export interface DemoPage {
  page: Page;
  /** Uncaught exceptions in the page: a demo that throws is broken even if it looks right. */
  pageErrors: string[];
  /** Every request the page sent to the API or the demo routes (not its files), with its Authorization. */
  apiRequests: ApiRequest[];
  /** Signs in as `shopper` through the page's form and waits until the page says so. */
  signIn(shopper: string): Promise<void>;
  /** The stock figure on screen, once it is a number. */
  stock(): Promise<number>;
  /** Waits for the stock on screen to read `units`. */
  stockToRead(units: number): Promise<void>;
  /** Starts recording every queue place the page shows (data-position, 0 once admitted) with its words. */
  recordQueue(): Promise<void>;
  recordedQueue(): Promise<QueueLine[]>;
  /** Presses Buy now and waits for the final outcome the page shows. */
  buy(): Promise<Outcome>;
  pressBuy(): Promise<void>;
  outcome(): Promise<Outcome>;
  stepStates(): Promise<Record<string, string>>;
  close(): Promise<void>;
}

export interface ApiRequest {
  method: string;
  path: string;
  authorization: string | undefined;
}

export interface QueueLine {
  position: number;
  text: string;
}

export interface Outcome {
  outcome: string;
  text: string;
}

export async function openDemoPage(
  browser: Browser,
  baseUrl: string,
  link: { product?: string; room: string; shopper: string },
): Promise<DemoPage> {
  const context: BrowserContext = await browser.newContext();
  const page = await context.newPage();
  const pageErrors: string[] = [];
  const apiRequests: ApiRequest[] = [];
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("request", (request) => {
    const { pathname } = new URL(request.url());
    if (!/^\/v1\/|^\/demo\/(login|deposits|refunds)$/.test(pathname)) return;
    apiRequests.push({
      method: request.method(),
      path: pathname,
      authorization: request.headers().authorization,
    });
  });
  const query = new URLSearchParams(
    Object.entries(link).filter(([, value]) => value !== undefined),
  ).toString();
  await page.goto(`${baseUrl}/demo/?${query}`);
  await page.waitForSelector("body[data-ready=true]", { timeout: 15_000 }).catch((error: Error) => {
    throw new Error(`the demo page did not start (${error.message}); page errors: ${pageErrors}`);
  });

  const stock = async () => {
    await page.waitForFunction(() => /^\d+$/.test(document.querySelector("#stock")?.textContent ?? ""));
    return Number(await page.textContent("#stock"));
  };

  const outcome = async (): Promise<Outcome> => {
    await page.waitForSelector("#outcome[data-outcome]", { timeout: 90_000 });
    return {
      outcome: (await page.getAttribute("#outcome", "data-outcome")) ?? "",
      text: (await page.textContent("#outcome")) ?? "",
    };
  };

  const signIn = async (shopper: string) => {
    await page.fill("#shopper-id", shopper);
    await page.click("#sign-in");
    await page
      .waitForFunction(
        (expected) => (document.querySelector("#signed-in") as HTMLElement | null)?.dataset.user === expected,
        shopper,
        { timeout: 15_000 },
      )
      .catch(async (error: Error) => {
        throw new Error(
          `sign-in as ${shopper} failed (${error.message}): ${await page.textContent("#signed-in")}`,
        );
      });
  };
  await signIn(link.shopper);

  return {
    page,
    pageErrors,
    apiRequests,
    signIn,
    stock,
    async stockToRead(units) {
      await page.waitForFunction(
        (expected) => document.querySelector("#stock")?.textContent === String(expected),
        units,
        { timeout: 15_000 },
      );
    },
    async recordQueue() {
      await page.evaluate(() => {
        const queue = document.querySelector("#queue") as HTMLElement;
        const seen: QueueLine[] = [];
        (window as unknown as { seenQueue: QueueLine[] }).seenQueue = seen;
        // Called after the page's update finished (a microtask later): the words match the place.
        new MutationObserver(() => {
          const position = queue.dataset.position;
          if (position !== undefined)
            seen.push({ position: Number(position), text: queue.textContent ?? "" });
        }).observe(queue, { attributes: true, attributeFilter: ["data-position"] });
      });
    },
    recordedQueue: () => page.evaluate(() => (window as unknown as { seenQueue: QueueLine[] }).seenQueue),
    pressBuy: () => page.click("#buy"),
    outcome,
    async buy() {
      await page.click("#buy");
      return outcome();
    },
    stepStates: () =>
      page.$$eval("#steps [data-step]", (lines) =>
        Object.fromEntries(
          lines.map((line) => [line.getAttribute("data-step"), line.getAttribute("data-state")]),
        ),
      ),
    close: () => context.close(),
  };
}
