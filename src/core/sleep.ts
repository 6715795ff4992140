/** The default pause between retries and polls; callers take a replacement for tests. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
