// GNU readline and its history library. <readline/readline.h> uses FILE without
// including <stdio.h> itself, so stdio comes first.
#ifndef C_READLINE_SHIM_H
#define C_READLINE_SHIM_H

#include <stdio.h>
#include <readline/readline.h>
#include <readline/history.h>

#endif
