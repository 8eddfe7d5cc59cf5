#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int outfile_open(struct outfile *of, const char *path, char *err, size_t errlen)
{
	int fd;

	memset(of, 0, sizeof(*of));
	if (snprintf(of->path, sizeof(of->path), "%s", path) >= (int)sizeof(of->path) ||
	    snprintf(of->tmp, sizeof(of->tmp), "%s.tmp.XXXXXX", path) >= (int)sizeof(of->tmp)) {
		snprintf(err, errlen, "%s: path too long", path);
		return -1;
	}
	fd = mkostemp(of->tmp, O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	fchmod(fd, 0644);
	of->fp = fdopen(fd, "w");
	if (!of->fp) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		close(fd);
		unlink(of->tmp);
		return -1;
	}
	return 0;
}

int outfile_commit(struct outfile *of, char *err, size_t errlen)
{
	int bad = ferror(of->fp);

	if (fflush(of->fp) || bad || fsync(fileno(of->fp))) {
		snprintf(err, errlen, "cannot write %s: %s", of->path,
			 strerror(errno ? errno : EIO));
		outfile_abort(of);
		return -1;
	}
	if (fclose(of->fp)) {
		of->fp = NULL;
		snprintf(err, errlen, "cannot write %s: %s", of->path, strerror(errno));
		unlink(of->tmp);
		return -1;
	}
	of->fp = NULL;
	if (rename(of->tmp, of->path)) {
		snprintf(err, errlen, "cannot rename %s to %s: %s", of->tmp, of->path,
			 strerror(errno));
		unlink(of->tmp);
		return -1;
	}
	return 0;
}

void outfile_abort(struct outfile *of)
{
	if (of->fp) {
		fclose(of->fp);
		of->fp = NULL;
	}
	if (of->tmp[0])
		unlink(of->tmp);
	of->tmp[0] = '\0';
}
