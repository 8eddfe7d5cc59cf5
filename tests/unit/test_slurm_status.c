/* runner/slurm_status's parsers: done/<I> records, and squeue, scontrol and sacct output.
 * The Slurm samples were captured from the one-node test cluster (tests/e2e/slurm.sh, Slurm
 * 22.05) running a 6-task array: task 0 exited 0, task 1 exited 3, task 2 was cancelled while
 * it ran, the others slept (running or pending for Resources); a second array was held. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../runner/slurm_parse.h"

#include <stdlib.h>
#include <string.h>

/* squeue -h -r -j ID -o '%K|%T|%N|%r' while task 2 ran */
static const char squeue_running[] =
    "3|PENDING||Resources\n"
    "4|PENDING||Resources\n"
    "5|PENDING||Resources\n"
    "2|RUNNING|vm|None\n";

/* the same of the held array (sbatch --hold) */
static const char squeue_held[] =
    "0|PENDING||JobHeldUser\n"
    "1|PENDING||JobHeldUser\n";

/* scontrol show job ID after task 2 was cancelled: pending 4-5 in one block, 3 running, the
 * ended ones */
static const char scontrol_mixed[] =
    "JobId=1 ArrayJobId=1 ArrayTaskId=4-5 JobName=j.sh\n"
    "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
    "   Priority=4294901759 Nice=0 Account=(null) QOS=(null)\n"
    "   JobState=PENDING Reason=Resources Dependency=(null)\n"
    "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
    "   RunTime=00:00:00 TimeLimit=UNLIMITED TimeMin=N/A\n"
    "   SubmitTime=2026-11-30T20:31:01 EligibleTime=2026-11-30T20:31:03\n"
    "   AccrueTime=2026-11-30T20:31:03\n"
    "   StartTime=Unknown EndTime=Unknown Deadline=N/A\n"
    "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-30T20:31:07 Scheduler=Main\n"
    "   Partition=sbtest AllocNode:Sid=localhost:15630\n"
    "   ReqNodeList=(null) ExcNodeList=(null)\n"
    "   NodeList=\n"
    "   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
    "   TRES=cpu=1,mem=21694M,node=1,billing=1\n"
    "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
    "   MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0\n"
    "   Features=(null) DelayBoot=00:00:00\n"
    "   OverSubscribe=NO Contiguous=0 Licenses=(null) Network=(null)\n"
    "   Command=/tmp/scalebench-e2e.9jtVb9/j.sh\n"
    "   WorkDir=/work/wt-slurmstatus\n"
    "   StdErr=/tmp/scalebench-e2e.9jtVb9/4294967294.out\n"
    "   StdIn=/dev/null\n"
    "   StdOut=/tmp/scalebench-e2e.9jtVb9/4294967294.out\n"
    "   Power=\n"
    "   \n"
    "\n"
    "JobId=5 ArrayJobId=1 ArrayTaskId=3 JobName=j.sh\n"
    "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
    "   Priority=4294901759 Nice=0 Account=(null) QOS=(null)\n"
    "   JobState=RUNNING Reason=None Dependency=(null)\n"
    "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
    "   RunTime=00:00:07 TimeLimit=UNLIMITED TimeMin=N/A\n"
    "   SubmitTime=2026-11-30T20:31:01 EligibleTime=2026-11-30T20:31:03\n"
    "   AccrueTime=2026-11-30T20:31:03\n"
    "   StartTime=2026-11-30T20:31:07 EndTime=Unknown Deadline=N/A\n"
    "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-30T20:31:07 Scheduler=Main\n"
    "   Partition=sbtest AllocNode:Sid=localhost:15630\n"
    "   ReqNodeList=(null) ExcNodeList=(null)\n"
    "   NodeList=vm\n"
    "   BatchHost=vm\n"
    "   NumNodes=1 NumCPUs=2 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
    "   TRES=cpu=2,mem=21694M,node=1,billing=2\n"
    "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
    "   MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0\n"
    "   Features=(null) DelayBoot=00:00:00\n"
    "   OverSubscribe=NO Contiguous=0 Licenses=(null) Network=(null)\n"
    "   Command=/tmp/scalebench-e2e.9jtVb9/j.sh\n"
    "   WorkDir=/work/wt-slurmstatus\n"
    "   StdErr=/tmp/scalebench-e2e.9jtVb9/3.out\n"
    "   StdIn=/dev/null\n"
    "   StdOut=/tmp/scalebench-e2e.9jtVb9/3.out\n"
    "   Power=\n"
    "   \n"
    "\n"
    "JobId=4 ArrayJobId=1 ArrayTaskId=2 JobName=j.sh\n"
    "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
    "   Priority=4294901759 Nice=0 Account=(null) QOS=(null)\n"
    "   JobState=CANCELLED Reason=None Dependency=(null)\n"
    "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:15\n"
    "   RunTime=00:00:02 TimeLimit=UNLIMITED TimeMin=N/A\n"
    "   SubmitTime=2026-11-30T20:31:01 EligibleTime=2026-11-30T20:31:03\n"
    "   AccrueTime=2026-11-30T20:31:03\n"
    "   StartTime=2026-11-30T20:31:05 EndTime=2026-11-30T20:31:07 Deadline=N/A\n"
    "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-30T20:31:05 Scheduler=Main\n"
    "   Partition=sbtest AllocNode:Sid=localhost:15630\n"
    "   ReqNodeList=(null) ExcNodeList=(null)\n"
    "   NodeList=vm\n"
    "   BatchHost=vm\n"
    "   NumNodes=1 NumCPUs=2 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
    "   TRES=cpu=2,mem=21694M,node=1,billing=2\n"
    "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
    "   MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0\n"
    "   Features=(null) DelayBoot=00:00:00\n"
    "   OverSubscribe=NO Contiguous=0 Licenses=(null) Network=(null)\n"
    "   Command=/tmp/scalebench-e2e.9jtVb9/j.sh\n"
    "   WorkDir=/work/wt-slurmstatus\n"
    "   StdErr=/tmp/scalebench-e2e.9jtVb9/2.out\n"
    "   StdIn=/dev/null\n"
    "   StdOut=/tmp/scalebench-e2e.9jtVb9/2.out\n"
    "   Power=\n"
    "   \n"
    "\n"
    "JobId=3 ArrayJobId=1 ArrayTaskId=1 JobName=j.sh\n"
    "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
    "   Priority=4294901759 Nice=0 Account=(null) QOS=(null)\n"
    "   JobState=FAILED Reason=NonZeroExitCode Dependency=(null)\n"
    "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=3:0\n"
    "   RunTime=00:00:00 TimeLimit=UNLIMITED TimeMin=N/A\n"
    "   SubmitTime=2026-11-30T20:31:01 EligibleTime=2026-11-30T20:31:03\n"
    "   AccrueTime=2026-11-30T20:31:03\n"
    "   StartTime=2026-11-30T20:31:04 EndTime=2026-11-30T20:31:04 Deadline=N/A\n"
    "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-30T20:31:04 Scheduler=Main\n"
    "   Partition=sbtest AllocNode:Sid=localhost:15630\n"
    "   ReqNodeList=(null) ExcNodeList=(null)\n"
    "   NodeList=vm\n"
    "   BatchHost=vm\n"
    "   NumNodes=1 NumCPUs=2 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
    "   TRES=cpu=2,mem=21694M,node=1,billing=2\n"
    "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
    "   MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0\n"
    "   Features=(null) DelayBoot=00:00:00\n"
    "   OverSubscribe=NO Contiguous=0 Licenses=(null) Network=(null)\n"
    "   Command=/tmp/scalebench-e2e.9jtVb9/j.sh\n"
    "   WorkDir=/work/wt-slurmstatus\n"
    "   StdErr=/tmp/scalebench-e2e.9jtVb9/1.out\n"
    "   StdIn=/dev/null\n"
    "   StdOut=/tmp/scalebench-e2e.9jtVb9/1.out\n"
    "   Power=\n"
    "   \n"
    "\n"
    "JobId=2 ArrayJobId=1 ArrayTaskId=0 JobName=j.sh\n"
    "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
    "   Priority=4294901759 Nice=0 Account=(null) QOS=(null)\n"
    "   JobState=COMPLETED Reason=None Dependency=(null)\n"
    "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
    "   RunTime=00:00:00 TimeLimit=UNLIMITED TimeMin=N/A\n"
    "   SubmitTime=2026-11-30T20:31:01 EligibleTime=2026-11-30T20:31:03\n"
    "   AccrueTime=2026-11-30T20:31:03\n"
    "   StartTime=2026-11-30T20:31:03 EndTime=2026-11-30T20:31:03 Deadline=N/A\n"
    "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-30T20:31:03 Scheduler=Main\n"
    "   Partition=sbtest AllocNode:Sid=localhost:15630\n"
    "   ReqNodeList=(null) ExcNodeList=(null)\n"
    "   NodeList=vm\n"
    "   BatchHost=vm\n"
    "   NumNodes=1 NumCPUs=2 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
    "   TRES=cpu=2,mem=21694M,node=1,billing=2\n"
    "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
    "   MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0\n"
    "   Features=(null) DelayBoot=00:00:00\n"
    "   OverSubscribe=NO Contiguous=0 Licenses=(null) Network=(null)\n"
    "   Command=/tmp/scalebench-e2e.9jtVb9/j.sh\n"
    "   WorkDir=/work/wt-slurmstatus\n"
    "   StdErr=/tmp/scalebench-e2e.9jtVb9/0.out\n"
    "   StdIn=/dev/null\n"
    "   StdOut=/tmp/scalebench-e2e.9jtVb9/0.out\n"
    "   Power=\n"
    "   \n"
    "\n";

/* scontrol show job ID once every task had ended (the rest cancelled) */
static const char scontrol_ended[] =
    "JobId=1 ArrayJobId=1 ArrayTaskId=4-5 JobName=j.sh\n"
    "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
    "   Priority=4294901759 Nice=0 Account=(null) QOS=(null)\n"
    "   JobState=CANCELLED Reason=Resources Dependency=(null)\n"
    "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
    "   RunTime=00:00:00 TimeLimit=UNLIMITED TimeMin=N/A\n"
    "   SubmitTime=2026-11-30T20:31:01 EligibleTime=2026-11-30T20:31:03\n"
    "   AccrueTime=2026-11-30T20:31:03\n"
    "   StartTime=2026-11-30T20:31:14 EndTime=2026-11-30T20:31:14 Deadline=N/A\n"
    "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-30T20:31:07 Scheduler=Main\n"
    "   Partition=sbtest AllocNode:Sid=localhost:15630\n"
    "   ReqNodeList=(null) ExcNodeList=(null)\n"
    "   NodeList=\n"
    "   NumNodes=1 NumCPUs=2 NumTasks=N/A CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
    "   TRES=cpu=1,mem=21694M,node=1,billing=1\n"
    "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
    "   MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0\n"
    "   Features=(null) DelayBoot=00:00:00\n"
    "   OverSubscribe=NO Contiguous=0 Licenses=(null) Network=(null)\n"
    "   Command=/tmp/scalebench-e2e.9jtVb9/j.sh\n"
    "   WorkDir=/work/wt-slurmstatus\n"
    "   StdErr=/tmp/scalebench-e2e.9jtVb9/4294967294.out\n"
    "   StdIn=/dev/null\n"
    "   StdOut=/tmp/scalebench-e2e.9jtVb9/4294967294.out\n"
    "   Power=\n"
    "   \n"
    "\n"
    "JobId=5 ArrayJobId=1 ArrayTaskId=3 JobName=j.sh\n"
    "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
    "   Priority=4294901759 Nice=0 Account=(null) QOS=(null)\n"
    "   JobState=CANCELLED Reason=None Dependency=(null)\n"
    "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:15\n"
    "   RunTime=00:00:07 TimeLimit=UNLIMITED TimeMin=N/A\n"
    "   SubmitTime=2026-11-30T20:31:01 EligibleTime=2026-11-30T20:31:03\n"
    "   AccrueTime=2026-11-30T20:31:03\n"
    "   StartTime=2026-11-30T20:31:07 EndTime=2026-11-30T20:31:14 Deadline=N/A\n"
    "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-30T20:31:07 Scheduler=Main\n"
    "   Partition=sbtest AllocNode:Sid=localhost:15630\n"
    "   ReqNodeList=(null) ExcNodeList=(null)\n"
    "   NodeList=vm\n"
    "   BatchHost=vm\n"
    "   NumNodes=1 NumCPUs=2 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
    "   TRES=cpu=2,mem=21694M,node=1,billing=2\n"
    "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
    "   MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0\n"
    "   Features=(null) DelayBoot=00:00:00\n"
    "   OverSubscribe=NO Contiguous=0 Licenses=(null) Network=(null)\n"
    "   Command=/tmp/scalebench-e2e.9jtVb9/j.sh\n"
    "   WorkDir=/work/wt-slurmstatus\n"
    "   StdErr=/tmp/scalebench-e2e.9jtVb9/3.out\n"
    "   StdIn=/dev/null\n"
    "   StdOut=/tmp/scalebench-e2e.9jtVb9/3.out\n"
    "   Power=\n"
    "   \n"
    "\n"
    "JobId=4 ArrayJobId=1 ArrayTaskId=2 JobName=j.sh\n"
    "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
    "   Priority=4294901759 Nice=0 Account=(null) QOS=(null)\n"
    "   JobState=CANCELLED Reason=None Dependency=(null)\n"
    "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:15\n"
    "   RunTime=00:00:02 TimeLimit=UNLIMITED TimeMin=N/A\n"
    "   SubmitTime=2026-11-30T20:31:01 EligibleTime=2026-11-30T20:31:03\n"
    "   AccrueTime=2026-11-30T20:31:03\n"
    "   StartTime=2026-11-30T20:31:05 EndTime=2026-11-30T20:31:07 Deadline=N/A\n"
    "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-30T20:31:05 Scheduler=Main\n"
    "   Partition=sbtest AllocNode:Sid=localhost:15630\n"
    "   ReqNodeList=(null) ExcNodeList=(null)\n"
    "   NodeList=vm\n"
    "   BatchHost=vm\n"
    "   NumNodes=1 NumCPUs=2 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
    "   TRES=cpu=2,mem=21694M,node=1,billing=2\n"
    "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
    "   MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0\n"
    "   Features=(null) DelayBoot=00:00:00\n"
    "   OverSubscribe=NO Contiguous=0 Licenses=(null) Network=(null)\n"
    "   Command=/tmp/scalebench-e2e.9jtVb9/j.sh\n"
    "   WorkDir=/work/wt-slurmstatus\n"
    "   StdErr=/tmp/scalebench-e2e.9jtVb9/2.out\n"
    "   StdIn=/dev/null\n"
    "   StdOut=/tmp/scalebench-e2e.9jtVb9/2.out\n"
    "   Power=\n"
    "   \n"
    "\n"
    "JobId=3 ArrayJobId=1 ArrayTaskId=1 JobName=j.sh\n"
    "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
    "   Priority=4294901759 Nice=0 Account=(null) QOS=(null)\n"
    "   JobState=FAILED Reason=NonZeroExitCode Dependency=(null)\n"
    "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=3:0\n"
    "   RunTime=00:00:00 TimeLimit=UNLIMITED TimeMin=N/A\n"
    "   SubmitTime=2026-11-30T20:31:01 EligibleTime=2026-11-30T20:31:03\n"
    "   AccrueTime=2026-11-30T20:31:03\n"
    "   StartTime=2026-11-30T20:31:04 EndTime=2026-11-30T20:31:04 Deadline=N/A\n"
    "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-30T20:31:04 Scheduler=Main\n"
    "   Partition=sbtest AllocNode:Sid=localhost:15630\n"
    "   ReqNodeList=(null) ExcNodeList=(null)\n"
    "   NodeList=vm\n"
    "   BatchHost=vm\n"
    "   NumNodes=1 NumCPUs=2 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
    "   TRES=cpu=2,mem=21694M,node=1,billing=2\n"
    "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
    "   MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0\n"
    "   Features=(null) DelayBoot=00:00:00\n"
    "   OverSubscribe=NO Contiguous=0 Licenses=(null) Network=(null)\n"
    "   Command=/tmp/scalebench-e2e.9jtVb9/j.sh\n"
    "   WorkDir=/work/wt-slurmstatus\n"
    "   StdErr=/tmp/scalebench-e2e.9jtVb9/1.out\n"
    "   StdIn=/dev/null\n"
    "   StdOut=/tmp/scalebench-e2e.9jtVb9/1.out\n"
    "   Power=\n"
    "   \n"
    "\n"
    "JobId=2 ArrayJobId=1 ArrayTaskId=0 JobName=j.sh\n"
    "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
    "   Priority=4294901759 Nice=0 Account=(null) QOS=(null)\n"
    "   JobState=COMPLETED Reason=None Dependency=(null)\n"
    "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
    "   RunTime=00:00:00 TimeLimit=UNLIMITED TimeMin=N/A\n"
    "   SubmitTime=2026-11-30T20:31:01 EligibleTime=2026-11-30T20:31:03\n"
    "   AccrueTime=2026-11-30T20:31:03\n"
    "   StartTime=2026-11-30T20:31:03 EndTime=2026-11-30T20:31:03 Deadline=N/A\n"
    "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-30T20:31:03 Scheduler=Main\n"
    "   Partition=sbtest AllocNode:Sid=localhost:15630\n"
    "   ReqNodeList=(null) ExcNodeList=(null)\n"
    "   NodeList=vm\n"
    "   BatchHost=vm\n"
    "   NumNodes=1 NumCPUs=2 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
    "   TRES=cpu=2,mem=21694M,node=1,billing=2\n"
    "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
    "   MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0\n"
    "   Features=(null) DelayBoot=00:00:00\n"
    "   OverSubscribe=NO Contiguous=0 Licenses=(null) Network=(null)\n"
    "   Command=/tmp/scalebench-e2e.9jtVb9/j.sh\n"
    "   WorkDir=/work/wt-slurmstatus\n"
    "   StdErr=/tmp/scalebench-e2e.9jtVb9/0.out\n"
    "   StdIn=/dev/null\n"
    "   StdOut=/tmp/scalebench-e2e.9jtVb9/0.out\n"
    "   Power=\n"
    "   \n"
    "\n";

static void test_done_good(void **state)
{
	struct slurm_done d;
	char err[256];

	(void)state;
	assert_int_equal(slurm_parse_done("exit=0 node=vm start=1796070000 end=1796070003\n", &d,
					  err, sizeof(err)),
			 0);
	assert_int_equal(d.exit_code, 0);
	assert_string_equal(d.node, "vm");
	assert_true(d.start == 1796070000 && d.end == 1796070003);
	slurm_done_free(&d);
	/* without the final newline too (a script's printf without \n) */
	assert_int_equal(slurm_parse_done("exit=2 node=node-01.cluster start=5 end=5", &d, err,
					  sizeof(err)),
			 0);
	assert_int_equal(d.exit_code, 2);
	assert_string_equal(d.node, "node-01.cluster");
	slurm_done_free(&d);
}

static void test_done_malformed(void **state)
{
	static const char *const bad[] = {
	    "",
	    "\n",
	    "exit=0\n",
	    "exit= node=vm start=1 end=2\n",
	    "exit=-1 node=vm start=1 end=2\n",
	    "exit=256 node=vm start=1 end=2\n",
	    "exit=0x1 node=vm start=1 end=2\n",
	    "exit=0 node= start=1 end=2\n",
	    "exit=0 node=v;m start=1 end=2\n",
	    "exit=0 node=vm start=1 end=2\nexit=0 node=vm start=1 end=2\n",
	    "exit=0  node=vm start=1 end=2\n",
	    "exit=0 node=vm start=2 end=1\n",
	    "exit=0 node=vm start=1 end=2 extra=3\n",
	    "node=vm exit=0 start=1 end=2\n",
	    "exit=0 node=vm start=99999999999999999999 end=2\n",
	};
	struct slurm_done d;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (slurm_parse_done(bad[i], &d, err, sizeof(err)) != -1)
			fail_msg("accepted \"%s\"", bad[i]);
		assert_true(err[0] != '\0');
		assert_null(d.node);
	}
}

static void test_squeue(void **state)
{
	struct slurm_reports r;
	const struct slurm_report *t;
	char err[256];

	(void)state;
	assert_int_equal(slurm_parse_squeue(squeue_running, &r, err, sizeof(err)), 0);
	assert_int_equal(r.n, 4);
	t = slurm_reports_find(&r, 2);
	assert_non_null(t);
	assert_string_equal(t->state, "RUNNING");
	assert_string_equal(t->node, "vm");
	assert_null(t->reason); /* "None" */
	t = slurm_reports_find(&r, 5);
	assert_string_equal(t->state, "PENDING");
	assert_null(t->node);
	assert_string_equal(t->reason, "Resources");
	assert_null(slurm_reports_find(&r, 0));
	slurm_reports_free(&r);

	assert_int_equal(slurm_parse_squeue(squeue_held, &r, err, sizeof(err)), 0);
	assert_int_equal(r.n, 2);
	assert_string_equal(slurm_reports_find(&r, 1)->reason, "JobHeldUser");
	slurm_reports_free(&r);

	/* an unsplit pending range, a non-array job, nothing at all */
	assert_int_equal(slurm_parse_squeue("[4-6%2]|PENDING||JobArrayTaskLimit\n", &r, err,
					    sizeof(err)),
			 0);
	assert_int_equal(r.n, 1);
	assert_non_null(slurm_reports_find(&r, 4));
	assert_non_null(slurm_reports_find(&r, 6));
	assert_null(slurm_reports_find(&r, 7));
	slurm_reports_free(&r);
	assert_int_equal(slurm_parse_squeue("1,3-4|PENDING||Priority\n", &r, err, sizeof(err)), 0);
	assert_int_equal(r.n, 2);
	assert_null(slurm_reports_find(&r, 2));
	assert_string_equal(slurm_reports_find(&r, 4)->reason, "Priority");
	slurm_reports_free(&r);
	assert_int_equal(slurm_parse_squeue("N/A|RUNNING|vm|None\n", &r, err, sizeof(err)), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.v[0].task, -1);
	slurm_reports_free(&r);
	assert_int_equal(slurm_parse_squeue("", &r, err, sizeof(err)), 0);
	assert_int_equal(r.n, 0);
	slurm_reports_free(&r);

	static const char *const bad[] = {"3|PENDING\n", "x|PENDING||None\n", "3||vm|None\n",
					   "5-3|PENDING||None\n", "1-x|PENDING||None\n"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (slurm_parse_squeue(bad[i], &r, err, sizeof(err)) != -1)
			fail_msg("accepted \"%s\"", bad[i]);
		assert_non_null(strstr(err, "squeue line 1"));
	}
}

static void test_scontrol(void **state)
{
	struct slurm_reports r;
	const struct slurm_report *t;
	char err[256];

	(void)state;
	assert_int_equal(slurm_parse_scontrol(scontrol_mixed, &r, err, sizeof(err)), 0);
	/* 4-5 pending (one block), 3 running, 2 cancelled, 1 failed, 0 completed */
	assert_int_equal(r.n, 5);
	t = slurm_reports_find(&r, 4);
	assert_string_equal(t->state, "PENDING");
	assert_string_equal(t->reason, "Resources");
	assert_null(t->node);
	assert_string_equal(slurm_reports_find(&r, 5)->state, "PENDING");
	assert_string_equal(slurm_reports_find(&r, 3)->state, "RUNNING");
	t = slurm_reports_find(&r, 2);
	assert_string_equal(t->state, "CANCELLED");
	assert_string_equal(t->node, "vm");
	assert_int_equal(t->exit_code, 0);
	assert_int_equal(t->exit_signal, 15);
	t = slurm_reports_find(&r, 1);
	assert_string_equal(t->state, "FAILED");
	assert_int_equal(t->exit_code, 3);
	t = slurm_reports_find(&r, 0);
	assert_string_equal(t->state, "COMPLETED");
	assert_int_equal(t->exit_code, 0);
	assert_non_null(r.command);
	assert_non_null(strstr(r.command, "/j.sh"));
	assert_null(strchr(r.command, '\n'));
	slurm_reports_free(&r);

	assert_int_equal(slurm_parse_scontrol(scontrol_ended, &r, err, sizeof(err)), 0);
	assert_int_equal(r.n, 5);
	for (long i = 2; i < 6; i++)
		assert_string_equal(slurm_reports_find(&r, i)->state, "CANCELLED");
	slurm_reports_free(&r);

	assert_int_equal(slurm_parse_scontrol("", &r, err, sizeof(err)), 0);
	assert_int_equal(r.n, 0);
	slurm_reports_free(&r);
	assert_int_equal(slurm_parse_scontrol("JobId=7 JobName=x\n   Reason=None\n\n", &r, err,
					      sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "JobState"));
	assert_int_equal(slurm_parse_scontrol("JobId=7 ArrayTaskId=1\n   JobState=FAILED "
					      "ExitCode=x:0\n",
					      &r, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "ExitCode"));
}

static void test_sacct(void **state)
{
	struct slurm_reports r;
	const struct slurm_report *t;
	char err[256];

	(void)state;
	/* the format sacct -P prints when accounting is on */
	assert_int_equal(slurm_parse_sacct("12_0|COMPLETED|vm|0:0\n"
					   "12_0.batch|COMPLETED|vm|0:0\n"
					   "12_1|CANCELLED by 0|vm|0:15\n"
					   "12_2|TIMEOUT|vm|0:0\n"
					   "12_3|OUT_OF_MEMORY|vm|0:125\n",
					   &r, err, sizeof(err)),
			 0);
	assert_int_equal(r.n, 4);
	assert_string_equal(slurm_reports_find(&r, 1)->state, "CANCELLED");
	t = slurm_reports_find(&r, 3);
	assert_string_equal(t->state, "OUT_OF_MEMORY");
	assert_int_equal(t->exit_signal, 125);
	slurm_reports_free(&r);
	assert_int_equal(slurm_parse_sacct("12_0|COMPLETED|vm\n", &r, err, sizeof(err)), -1);
	/* found by fuzz_slurm: an empty state */
	assert_int_equal(slurm_parse_sacct("00||soR0|0:0\n", &r, err, sizeof(err)), -1);
}

static void test_tail(void **state)
{
	const char *t = "1\n2\n3\n4\n";

	(void)state;
	assert_string_equal(slurm_tail_lines(t, strlen(t), 2), "3\n4\n");
	assert_string_equal(slurm_tail_lines(t, strlen(t), 10), t);
	assert_string_equal(slurm_tail_lines("a\nb", 3, 1), "b");
	assert_string_equal(slurm_tail_lines("", 0, 3), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_done_good),   cmocka_unit_test(test_done_malformed),
	    cmocka_unit_test(test_squeue),	cmocka_unit_test(test_scontrol),
	    cmocka_unit_test(test_sacct),	cmocka_unit_test(test_tail),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
