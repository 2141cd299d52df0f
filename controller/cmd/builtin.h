/*
 * builtin.h - the verbs: one cmd_<verb>.c each, listed in main.c's table.
 */
#ifndef SCHEDFARM_BUILTIN_H
#define SCHEDFARM_BUILTIN_H

int cmd_db(int argc, char **argv);
extern const char cmd_db_usage[];
int cmd_changes(int argc, char **argv);
extern const char cmd_changes_usage[];
int cmd_compare(int argc, char **argv);
extern const char cmd_compare_usage[];
int cmd_export(int argc, char **argv);
extern const char cmd_export_usage[];
int cmd_import(int argc, char **argv);
extern const char cmd_import_usage[];
int cmd_regressions(int argc, char **argv);
extern const char cmd_regressions_usage[];
int cmd_help(int argc, char **argv);
extern const char cmd_help_usage[];
int cmd_kernel(int argc, char **argv);
extern const char cmd_kernel_usage[];
int cmd_list(int argc, char **argv);
extern const char cmd_list_usage[];
/* `host check` lives with the boot code (cmd_kernel.c). */
int cmd_host_check(int argc, char **argv);
int cmd_plan(int argc, char **argv);
extern const char cmd_plan_usage[];
int cmd_report(int argc, char **argv);
extern const char cmd_report_usage[];

int cmd_host(int argc, char **argv);
extern const char cmd_host_usage[];
int cmd_job(int argc, char **argv);
extern const char cmd_job_usage[];
int cmd_queue(int argc, char **argv);
extern const char cmd_queue_usage[];
int cmd_rerun(int argc, char **argv);
extern const char cmd_rerun_usage[];
int cmd_results(int argc, char **argv);
extern const char cmd_results_usage[];
int cmd_run(int argc, char **argv);
extern const char cmd_run_usage[];
int cmd_serve(int argc, char **argv);
extern const char cmd_serve_usage[];
int cmd_submit(int argc, char **argv);
extern const char cmd_submit_usage[];
int cmd_bisect(int argc, char **argv);
extern const char cmd_bisect_usage[];
int cmd_config(int argc, char **argv);
extern const char cmd_config_usage[];
int cmd_patch(int argc, char **argv);
extern const char cmd_patch_usage[];

#endif
