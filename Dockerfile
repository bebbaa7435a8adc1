# The mock server as a container image: a static binary on an empty base, run as a non-root
# user, listening on all interfaces of the container on port 4010.
#
#	docker build -t sms-mockserver .
#	docker run --rm -p 127.0.0.1:4010:4010 sms-mockserver
#
# The startup line (docker logs) then names http://127.0.0.1:4010, which the host reaches
# through the published port. The mock answers only requests whose Host is a loopback name
# or address (localhost:4010 and 127.0.0.1:4010 from the host are) or one given with
# -allow-host: other containers calling it as http://sms-mock:4010 need
#
#	docker run --rm --name sms-mock --network NET sms-mockserver -allow-host sms-mock
#
# Arguments after the image name are the binary's flags (sms-mockserver -h lists them).
# Dockerfile.prebuilt is the final stage below with the binary built on the host instead (for
# machines that cannot pull golang:1.26); the container test builds and runs the image that way.

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/sms-mockserver ./cmd/sms-mockserver

FROM scratch
COPY --from=build /out/sms-mockserver /sms-mockserver
USER 65532:65532
EXPOSE 4010
ENTRYPOINT ["/sms-mockserver", "-addr", "0.0.0.0:4010"]
