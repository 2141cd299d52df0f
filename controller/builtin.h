/*
 * builtin.h - the verbs: one cmd_<verb>.c each, listed in main.c's table.
 */
#ifndef SCHEDFARM_BUILTIN_H
#define SCHEDFARM_BUILTIN_H

int cmd_db(int argc, char **argv);
extern const char cmd_db_usage[];
int cmd_help(int argc, char **argv);
extern const char cmd_help_usage[];

#endif
