/*
 * banned.h - functions this project does not call.
 *
 * Each of these either writes past a fixed buffer on long input or hides
 * parse errors.  Including this header after the system headers turns a use
 * into a compile error that names the replacement.  (After git's banned.h.)
 */
#ifndef SCHEDFARM_BANNED_H
#define SCHEDFARM_BANNED_H

#define BANNED(func) sorry_##func##_is_banned_use_strbuf_or_parse_number

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) BANNED(strncat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef atoi
#define atoi(x) BANNED(atoi)
#undef atol
#define atol(x) BANNED(atol)
#undef atof
#define atof(x) BANNED(atof)
#undef system
#define system(x) BANNED(system)
#undef popen
#define popen(x, y) BANNED(popen)
#undef gets
#define gets(x) BANNED(gets)

#endif
