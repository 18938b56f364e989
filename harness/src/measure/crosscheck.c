#include "measure/crosscheck.h"

int crosscheck_counts(const long long *counts, size_t n, struct crosscheck *out)
{
	struct crosscheck r = { 0 };
	int pairs = 0;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = i + 1; j < n; j++) {
			if (counts[i] < 0 || counts[j] < 0)
				continue;
			long long hi = counts[i] > counts[j] ? counts[i] : counts[j];
			long long diff = hi - (counts[i] + counts[j] - hi);
			/* two zeros agree; one zero against a count is 100 % off */
			double pct = hi ? 100.0 * (double)diff / (double)hi : 0;
			if (!pairs++ || pct > r.max_pct) {
				r.max_pct = pct;
				r.worst_a = i;
				r.worst_b = j;
			}
			if (diff > CROSSCHECK_TOL_FRAMES && pct > CROSSCHECK_TOL_PCT)
				r.inconsistent = 1;
		}
	}
	if (!pairs)
		return -1;
	*out = r;
	return 0;
}
