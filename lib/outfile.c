#include "outfile.h"
#include "file.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int outfile_open(struct outfile *of, const char *path, char *err, size_t errlen)
{
	int fd;

	memset(of, 0, sizeof(*of));
	if (path_fmt(of->path, sizeof(of->path), err, errlen, "%s", path))
		return -1;
	fd = file_tmp_create(path, of->tmp, sizeof(of->tmp), err, errlen);
	if (fd < 0)
		return -1;
	of->fp = fdopen(fd, "w");
	if (!of->fp) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		close(fd);
		unlink(of->tmp);
		of->tmp[0] = '\0';
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
		outfile_abort(of);
		return -1;
	}
	of->fp = NULL;
	if (file_tmp_rename(of->tmp, of->path, err, errlen)) {
		of->tmp[0] = '\0';
		return -1;
	}
	of->tmp[0] = '\0';
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
