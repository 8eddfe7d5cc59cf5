/* Placement through hwloc, so that "core" means a physical core even where the kernel's CPU
 * numbering interleaves SMT siblings (0,1 on one core) or spreads them (0,N). */
#include "core.h"

#include <hwloc.h>
#include <stdio.h>

int placement_cpus(unsigned nr_copies, bool smt, int *cpus, char *err, size_t errlen)
{
	hwloc_topology_t topo;
	int ncores, npus;
	int order[CORE_MAX_COPIES];
	unsigned norder = 0;

	if (hwloc_topology_init(&topo) || hwloc_topology_load(topo)) {
		snprintf(err, errlen, "hwloc could not read the CPU topology");
		return -1;
	}
	ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
	npus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	if (ncores <= 0) {
		/* No core level (some containers): every PU counts as a core. */
		for (int i = 0; i < npus && norder < CORE_MAX_COPIES; i++)
			order[norder++] =
			    (int)hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i)->os_index;
	} else {
		/* Round r takes the r-th hardware thread of every core: round 0 alone without smt.
		 */
		for (unsigned round = 0; round < (smt ? 64u : 1u); round++) {
			unsigned added = 0;

			for (int c = 0; c < ncores && norder < CORE_MAX_COPIES; c++) {
				hwloc_obj_t core =
				    hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)c);
				int pu = hwloc_bitmap_first(core->cpuset);

				for (unsigned k = 0; k < round && pu >= 0; k++)
					pu = hwloc_bitmap_next(core->cpuset, pu);
				if (pu >= 0) {
					order[norder++] = pu;
					added++;
				}
			}
			if (!added)
				break;
		}
	}
	hwloc_topology_destroy(topo);
	if (norder == 0) {
		snprintf(err, errlen, "hwloc found no usable CPU");
		return -1;
	}
	for (unsigned i = 0; i < nr_copies; i++)
		cpus[i] = order[i % norder];
	return 0;
}
