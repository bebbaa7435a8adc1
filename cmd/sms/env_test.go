package main

import sms "github.com/seedsms/sms-go"

// envBaseURL is the SDK's variable for the base URL, which the command reads too: tests set it
// in the environment they give the command.
const envBaseURL = sms.BaseURLEnv
