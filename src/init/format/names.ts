// The report formats by name, apart from their code: the command declares them as choices (for
// help and completions) without loading any formatter.
export const FORMAT_NAMES = ['stylish', 'compact', 'json', 'sarif', 'github'] as const;

export type FormatName = (typeof FORMAT_NAMES)[number];
