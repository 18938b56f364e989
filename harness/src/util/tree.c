#include "util/tree.h"

#include <stdlib.h>
#include <string.h>

#include "util/proc.h"
#include "util/util.h"

int copy_tree(const char *from, const char *to, enum tree_copy_how how, const char *copy_anyway)
{
	struct strlist names = { 0 };
	if (list_dir(from, &names) < 0 || mkdir_p(to, 0755) < 0) {
		strlist_free(&names);
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; i < names.n && rc == 0; i++) {
		char *f = path_join(from, names.v[i]);
		char *copy[] = { "cp", "-a", "--reflink=auto", f, (char *)to, NULL };
		char *link[] = { "cp", "-al", f, (char *)to, NULL };
		int linked = how == TREE_HARD_LINK &&
			     !(copy_anyway && !strcmp(names.v[i], copy_anyway));
		rc = proc_run(linked ? link : copy, NULL) == 0 ? 0 : -1;
		free(f);
	}
	strlist_free(&names);
	return rc;
}
